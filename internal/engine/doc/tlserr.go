package doc

import (
	"strings"

	"github.com/enginebench/enginebench/internal/engine/tlsfault"
)

// mongoTLSWords names the mongodb:// URI's TLS options in the hints.
var mongoTLSWords = tlsfault.Words{CA: "tlsCAFile=FILE",
	Cert:  "tlsCertificateKeyFile=FILE (the certificate and its key in one PEM file)",
	NoTLS: "no tls option", On: "tls=true&tlsCAFile=FILE (or tls=true alone to verify against the system's CAs)"}

// mongoTLSHint returns err, the driver's refusal of the first command, told as a TLS fault of
// the connection when it is one (tlsfault), or err. tls says whether the URI asks for TLS. The
// driver keeps only the text of a server's last error in its topology, so the faults are told
// by their words.
func mongoTLSHint(err error, tls bool) error {
	if err == nil {
		return nil
	}
	hint := tlsfault.CertHint(err, mongoTLSWords)
	msg := err.Error()
	switch {
	case hint != "":
	case tls && strings.Contains(msg, "Last error: EOF"):
		// A server without TLS (FerretDB) closes a connection whose first bytes are a TLS
		// handshake rather than a message; the driver says no more than EOF.
		hint = "the server closed the connection at the TLS handshake: if it has no TLS, give " + mongoTLSWords.NoTLS + ", or turn TLS on at the server"
	case !tls && strings.Contains(msg, "incomplete read of message header") && strings.Contains(msg, "EOF"):
		// A server that takes TLS only closes a connection whose first bytes are not a TLS
		// handshake; the driver says the connection ended before the reply.
		hint = "the server closed a connection without TLS: if it takes TLS connections only, give " + mongoTLSWords.On
	}
	if hint == "" {
		return err
	}
	return tlsfault.New(hint, err)
}
