//go:build race

package server

// raceBuild reports whether the tests run with -race, whose
// instrumentation makes frames bigger than the shipped binary's.
const raceBuild = true
