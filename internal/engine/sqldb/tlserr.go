package sqldb

import (
	"crypto/tls"
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/enginebench/enginebench/internal/engine/tlsfault"
)

// TLS faults of a connection to an existing server (tlsfault), with what only PostgreSQL's
// and the MySQL family's protocols tell: MariaDB's "Access denied" for a TCP connection without
// TLS to a server with require_secure_transport, PostgreSQL's pg_hba.conf refusal.

var (
	pgTLSWords = tlsfault.Words{CA: "sslrootcert=FILE", Cert: "sslcert=FILE and sslkey=FILE",
		NoTLS: "sslmode=disable", On: "sslmode=verify-full with sslrootcert=FILE (or sslmode=require, which verifies nothing)"}
	mysqlTLSWords = tlsfault.Words{CA: "tls-ca=FILE", Cert: "tls-cert=FILE and tls-key=FILE",
		NoTLS: "none of tls, tls-ca, tls-cert and tls-key", On: "tls-ca=FILE (or tls=true to verify against the system's CAs)"}
)

// pgTLSHint returns err told as a TLS fault of a PostgreSQL connection, or err.
func pgTLSHint(err error) error {
	if err == nil {
		return nil
	}
	hint := tlsfault.CertHint(err, pgTLSWords)
	var pe *pgconn.PgError
	msg := err.Error()
	switch {
	case hint != "":
	case errors.As(err, &pe) && pe.Code == "28000" && strings.Contains(pe.Message, "no encryption"):
		hint = "the server takes TLS connections only (no pg_hba.conf entry without encryption): set " + pgTLSWords.On
	case strings.Contains(msg, "server refused TLS connection"):
		hint = "the DSN asks for TLS but the server has none: set " + pgTLSWords.NoTLS + " (or turn TLS on at the server)"
	case errors.As(err, &pe) && pe.Code == "28000" && strings.Contains(pe.Message, "certificate"):
		hint = "the server asks for a client certificate (" + pe.Message + "): give one with " + pgTLSWords.Cert + ", for the user the DSN names"
	}
	if hint == "" {
		return err
	}
	return tlsfault.New(hint, err)
}

// mysqlTLSHint returns err told as a TLS fault of a MySQL-family connection with the TLS
// configuration c (nil: the DSN asks for no TLS), or err.
func mysqlTLSHint(err error, c *tls.Config) error {
	if err == nil {
		return nil
	}
	hint := tlsfault.CertHint(err, mysqlTLSWords)
	var me *mysql.MySQLError
	switch {
	case hint != "":
	case errors.Is(err, mysql.ErrNoTLS):
		hint = "the DSN asks for TLS but the server has none: give " + mysqlTLSWords.NoTLS + " (or turn TLS on at the server)"
	case errors.As(err, &me) && me.Number == mysqlSecureTransportRequired:
		hint = "the server takes TLS connections only (require_secure_transport): give " + mysqlTLSWords.On
	case errors.As(err, &me) && me.Number == mysqlAccessDenied && c == nil:
		// MariaDB refuses a connection without TLS under require_secure_transport as a wrong
		// password.
		hint = "access denied (" + me.Message + "): the password is wrong, or the server takes TLS connections only (MariaDB's require_secure_transport says so this way): give " + mysqlTLSWords.On
	case errors.As(err, &me) && me.Number == mysqlAccessDenied && len(c.Certificates) == 0:
		// And an account that REQUIRE X509 without a client certificate so too.
		hint = "access denied (" + me.Message + "): the password is wrong, or the account requires a client certificate (REQUIRE X509): give one with " + mysqlTLSWords.Cert
	}
	if hint == "" {
		return err
	}
	return tlsfault.New(hint, err)
}

// The MySQL family's error numbers of the hints.
const (
	mysqlAccessDenied            = 1045 // ER_ACCESS_DENIED_ERROR
	mysqlSecureTransportRequired = 3159 // ER_SECURE_TRANSPORT_REQUIRED (MySQL 5.7 and later)
)
