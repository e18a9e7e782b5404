// Package catalog is the model catalogue: the built-in models (IDs, prices,
// limits, capabilities, default deployment and lifecycle) read from the
// embedded models.csv, plus the models configuration adds or changes.
//
// models.csv is derived from the project's reference models.csv and
// models.md (as of 2026-11-22). Its columns are those of header in parse.go. Prices
// are exact decimal USD per million tokens; an empty numeric cell means
// unknown (0). The date columns follow these rules:
//
//   - created (the created field of GET /v1/models): the snapshot date in
//     the ID when it has one (gpt-4o-2024-08-06 → 2024-08-06,
//     claude-3-haiku-20240307 → 2024-03-07, gpt-3.5-turbo-0125 →
//     2024-01-25); else, for an alias, the date of the snapshot it points to
//     (models.md "Aliases and snapshots"); else the vendor's public release
//     or GA date when it is known for certain; else empty, which
//     /v1/models shows as 0.
//   - sunset_on: the day the vendor stops serving the model (retired, shut
//     down). From that day the gateway answers 404 for the ID. When only a
//     month is known, the first day of that month.
//   - deprecated_on: the day the deprecation was announced, when known.
//     It may be empty while sunset_on is set.
//   - replacement: the model the vendor names as the successor, if any;
//     it need not be in the catalogue.
//
// The price columns beyond input and output come from the notes of the
// reference table:
//
//   - cached_input_usd_per_mtok: the cache-read price ("cache read X" or
//     "cache write W / read X"), where a base (not long-context) one is
//     given; empty means the input price.
//   - long_context_above_tokens and the long_* prices: the "TIERED"
//     notes, the price of a whole request whose prompt is over that many
//     tokens ("200k" is 200000). An alias the reference says has the same
//     tiers as its snapshot gets them too.
package catalog
