package sqldb

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// TLS of the MySQL family beyond go-sql-driver/mysql's own tls=true|false|skip-verify|preferred:
// enginebench's DSN parameters tls-ca=FILE (the CA that signed the server's certificate, PEM:
// a cloud's CA bundle), tls-cert=FILE and tls-key=FILE (a client certificate and its key, PEM).
// They are taken out of the DSN before go-sql-driver parses it (it would send an unknown
// parameter to the server as a session variable) and make the tls.Config of the connection:
// the server's certificate verified against the CA for the DSN's host. File paths are not
// secrets; the DSN's password is, as always.

// The enginebench parameters of a MySQL DSN.
const (
	mysqlTLSCA   = "tls-ca"
	mysqlTLSCert = "tls-cert"
	mysqlTLSKey  = "tls-key"
)

// mysqlTLSParamRE matches one enginebench TLS parameter of a DSN's query, its value up to the
// next parameter: a path may hold '/' (go-sql-driver would take the last '/' for the
// database's).
var mysqlTLSParamRE = regexp.MustCompile(`([?&])(tls-ca|tls-cert|tls-key)=([^&]*)`)

// cutMySQLTLSParams returns dsn without enginebench's TLS parameters, and their values
// (percent-decoded).
func cutMySQLTLSParams(dsn string) (string, map[string]string, error) {
	params := map[string]string{}
	for {
		m := mysqlTLSParamRE.FindStringSubmatchIndex(dsn)
		if m == nil {
			break
		}
		sep, key, raw := dsn[m[2]:m[3]], dsn[m[4]:m[5]], dsn[m[6]:m[7]]
		if _, dup := params[key]; dup {
			return "", nil, fmt.Errorf("the DSN parameter %s is given twice", key)
		}
		v, err := url.QueryUnescape(raw)
		if err != nil || v == "" {
			return "", nil, fmt.Errorf("the DSN parameter %s wants a file name (percent-encoded where it holds & or %%)", key)
		}
		params[key] = v
		rest := dsn[m[1]:]
		if sep == "?" { // the next parameter, if any, is the first
			if rest = strings.TrimPrefix(rest, "&"); rest != "" {
				rest = "?" + rest
			}
		}
		dsn = dsn[:m[0]] + rest
	}
	return dsn, params, nil
}

// applyMySQLTLS sets mc.TLS from enginebench's TLS parameters: RootCAs from tls-ca, the
// DSN's host as the name to verify, the client certificate of tls-cert and tls-key. A
// contradiction (tls-ca with tls=false, skip-verify or preferred, which verify nothing; one of
// tls-cert and tls-key without the other; TLS on a unix socket) and a file that is missing or
// does not parse are errors.
func applyMySQLTLS(mc *mysql.Config, params map[string]string) error {
	if len(params) == 0 {
		return nil
	}
	ca, cert, key := params[mysqlTLSCA], params[mysqlTLSCert], params[mysqlTLSKey]
	if (cert == "") != (key == "") {
		return fmt.Errorf("the DSN gives one of %s and %s: give both, the client certificate and its key", mysqlTLSCert, mysqlTLSKey)
	}
	mode := strings.ToLower(mc.TLSConfig)
	switch {
	case mode == "false":
		return fmt.Errorf("the DSN has tls=false and TLS files (%s): drop tls=false, or the files", strings.Join(keysOf(params), ", "))
	case ca != "" && (mode == "skip-verify" || mode == "preferred"):
		return fmt.Errorf("the DSN has tls=%s, which verifies no certificate, and %s: drop tls=%s to verify the server against the CA", mode, mysqlTLSCA, mode)
	case mode != "" && mode != "true" && mode != "skip-verify" && mode != "preferred":
		return fmt.Errorf("the DSN has tls=%s and TLS files: with %s, %s and %s give tls=true or no tls", mode, mysqlTLSCA, mysqlTLSCert, mysqlTLSKey)
	case mc.Net != "tcp":
		return fmt.Errorf("the DSN's TLS files are for TCP (tcp(host:port)), not for %s", mc.Net)
	}
	c := mc.TLS
	if c == nil {
		c = &tls.Config{}
	}
	c = c.Clone()
	c.MinVersion = tls.VersionTLS12
	if ca != "" {
		pool, err := caPool(ca)
		if err != nil {
			return fmt.Errorf("the DSN parameter %s: %w", mysqlTLSCA, err)
		}
		c.RootCAs = pool
		c.InsecureSkipVerify = false
		if host, _, err := net.SplitHostPort(mc.Addr); err == nil {
			c.ServerName = host
		}
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("the DSN parameters %s and %s: %w", mysqlTLSCert, mysqlTLSKey, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	mc.TLS, mc.AllowFallbackToPlaintext = c, mode == "preferred"
	return nil
}

// caPool returns the certificates of the PEM file path.
func caPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// keysOf returns the names of the parameters given, in a fixed order.
func keysOf(params map[string]string) []string {
	var out []string
	for _, k := range []string{mysqlTLSCA, mysqlTLSCert, mysqlTLSKey} {
		if _, ok := params[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
