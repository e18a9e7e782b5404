package jsonscan

import "unsafe"

// View returns b as a string without copying it, for gjson to read a body
// in place (gjson's GetBytes copies every value it finds, and ParseBytes
// the whole text). The string aliases b: b must not change while the
// string or anything read through it (a gjson.Result's Raw and Str) is in
// use, and what is kept past that must be copied (strings.Clone).
func View(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
