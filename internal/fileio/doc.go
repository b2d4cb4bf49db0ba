// Package fileio reads numeric matrices and vectors from CSV and .npy files
// (and SciPy CSR .npz graphs, CSR), and writes result files atomically (temp
// file in the same directory, fsync, rename: WriteAtomic, WriteCSVAtomic) so
// a killed process never leaves a half-written result over a good one.
//
// Read errors are typed, as encoding/csv's ParseError is: a ReadError names
// the file, the line and, when a cell is to blame, the column (LineErrorf,
// FieldErrorf); a ColumnError is a column a setting names (by its config key)
// that the header lacks, and the command line names the flag the user typed
// for that key (configkeys.Table.Name). errors.As finds both under any
// wrapping.
//
// Every CSV reader (NewCSVReader) also reads gzip-compressed files, told by
// gzip's magic bytes, within a bound on their expansion. Large CSVs are split
// at record boundaries for parallel parsing (SplitCSV, EachRowChunk: the
// serial reader's rows, lines and errors). Columns picks a table's columns by
// role (ids, features, labels), refusing label-like and unnamed columns as
// features. Ids are checked unique (CheckUniqueIDs) and written
// spreadsheet-safe (SpreadsheetSafe). A file flag given as "-" is spooled
// from stdin to a temp file (SpoolStdin); OpenInput refuses a FIFO or device
// instead of waiting on it. TryLock gives inter-process locks (flock, or
// lease files where flock is unavailable), and SweepTemps removes the temp
// files of writers that were killed.
package fileio
