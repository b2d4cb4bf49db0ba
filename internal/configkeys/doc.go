// Package configkeys checks the keys of a YAML config file against the Go
// struct it configures, before any value is decoded, so that a mistyped key
// is an error naming the file, the line and the nearest valid key:
//
//	config configs/bmg.yaml:9: unknown key "budgett" (did you mean "budget"?)
//
// Keys are the struct's `yaml` tags, the one tag set of every config
// struct (read from a config file, written to a campaign's config.yaml),
// compared exactly; ",inline" fields contribute their keys to the
// enclosing level, nested structs are checked recursively, maps accept any
// key. Check also refuses values of the wrong type, naming the key and
// what is expected; Load checks and then decodes a file onto its defaults.
// Suggest is the did-you-mean used for flags too.
//
// A command's settings are resolved by one pipeline driven by one Table:
// each Binding ties a flag to its config key and to the typed field both
// set. The defaults are in the fields (from the Protocol constructors),
// Load (LoadNode, for a file already parsed) decodes the config file onto
// them, Apply copies the flags the user set. A flag applies to the
// settings whose fields it sets: FlagsInside and FlagsOutside list the
// flags of a sub-struct, or of none of its fields, so a command derives
// which flags a kind of input refuses from the fields themselves. The
// same table names the flag of a SettingError's key (Name), so a message
// says "--budget (key budget)" to the user who typed --budget.
// SettingError is the typed refusal of a setting that Validate and Plan
// functions return.
package configkeys
