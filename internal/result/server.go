package result

// DBMS hosts (ServerLink.DBMSHost).
const (
	// DBMSThisHost: the DBMS's processes are on the host the client ran on (a managed server,
	// or an existing one given with --db-pid), whose CPU, IO and memory are measured.
	DBMSThisHost = "this host"
	// DBMSUnknown: the DBMS runs where the client cannot see it (another host, a managed
	// service, or an existing server without --db-pid); only its own counters tell its work.
	DBMSUnknown = "unknown"
)

// ServerLink is where a server engine's DBMS runs and how the client reached it, read before
// the configuration's first step.
type ServerLink struct {
	// DBMSHost is DBMSThisHost or DBMSUnknown.
	DBMSHost string `json:"dbms_host"`
	// Address is the server's host:port or socket path, never a user or a password.
	Address string `json:"address,omitempty"`
	// TLS is the protocol and cipher of a session, as the server tells it; empty when the
	// connection is not encrypted.
	TLS string `json:"tls,omitempty"`
	// RoundTrip is the time of a trivial statement; nil when it could not be measured (Error
	// says why).
	RoundTrip *RoundTrip `json:"round_trip,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// RoundTrip is the time one trivial statement took, over Samples sequential round trips on
// one connection after a few untimed ones, in microseconds.
type RoundTrip struct {
	// Statement is what was sent: "SELECT 1", or MongoDB's "ping" command.
	Statement string  `json:"statement"`
	Samples   int     `json:"samples"`
	MinUs     float64 `json:"min_us"`
	P50Us     float64 `json:"p50_us"`
	P99Us     float64 `json:"p99_us"`
	MaxUs     float64 `json:"max_us"`
}
