package main

import (
	"errors"

	"github.com/enginebench/enginebench/internal/plan"
	"github.com/enginebench/enginebench/internal/redact"
)

// Redaction: DSNs and passwords never reach output, logs or result files.

// redactArgs returns the command line args with the value of every --dsn (--dsn DSN,
// --dsn=DSN, CONFIG=DSN) replaced and any other password removed, for run.json and output.
func redactArgs(args []string) []string { return redact.Args(args, "--dsn", plan.RedactDSNFlag) }

// redactError returns err with its message redacted, keeping its exit status.
func redactError(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := redact.Text(msg, secrets...)
	if clean == msg {
		return err
	}
	var ee exitError
	if errors.As(err, &ee) {
		return exitError{ee.code, redact.Text(ee.msg, secrets...)}
	}
	var ue usageError
	if errors.As(err, &ue) {
		return usageError{errors.New(clean)}
	}
	return errors.New(clean)
}
