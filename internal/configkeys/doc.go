// Package configkeys checks the keys of a YAML config file against the Go
// struct it configures, before any value is decoded, so that a mistyped key
// is an error naming the file, the line and the nearest valid key:
//
//	config configs/bmg.yaml:9: unknown key "budgett" (did you mean "budget"?)
//
// Keys are the struct's `mapstructure` tags (viper's decoder), compared
// case-insensitively as viper does; ",squash" fields contribute their keys
// to the enclosing level, nested structs are checked recursively, and maps
// accept any key. Suggest is the did-you-mean used for flags too.
package configkeys
