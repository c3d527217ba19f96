// Package codeshape holds tests of the code's shape, not its behaviour:
// how many functions are too branchy to read at once, how many methods
// a type exports. Each keeps a ceiling per known exception that may only
// go down (issue 27: one rule, one place; no type that does everything).
package codeshape
