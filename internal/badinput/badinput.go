// Package badinput marks the errors that are the user's input, found before any work starts
// (the command line gives them exit status 2), apart from failures of the machine or of the
// work. Every package that checks input returns them, so the command line tells the two apart
// in one place.
package badinput

import "fmt"

// Error is bad input: an input the user gave (a flag, a run spec, a directory) that cannot be
// used as given, whatever error it wraps.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the message of fmt.Errorf.
func Errorf(format string, a ...any) error { return &Error{fmt.Errorf(format, a...)} }

// Path is a path the user named (or its default) that failed to read, to be made or to take
// what it should: the system's error it wraps tells whether the path cannot be used as given
// (permissions, missing, full: bad input) or the machine failed (an I/O error).
type Path struct{ Err error }

func (e *Path) Error() string { return e.Err.Error() }
func (e *Path) Unwrap() error { return e.Err }
