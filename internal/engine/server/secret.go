package server

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The password of a server that listens on TCP: generated per server from crypto/rand, kept in
// enginebench's memory only. The server is given its hash, never the password itself, through a
// file of mode 0600 in the private socket directory that the initialisation program reads (not
// its command line), removed when the initialisation ends.

// passwordBytes is the password's entropy: 192 bits, written as 48 hexadecimal digits (no
// character that needs quoting in a DSN, an option file or SQL).
const passwordBytes = 24

// newPassword returns a fresh random password.
func newPassword() (string, error) {
	b := make([]byte, passwordBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate the server's password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// scramIterations is PostgreSQL's default iteration count for SCRAM-SHA-256 secrets.
const scramIterations = 4096

// pgScramSecret returns the SCRAM-SHA-256 secret of password as PostgreSQL stores it in
// pg_authid (RFC 5803 form: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>).
// PostgreSQL takes a password in this form as the secret itself.
func pgScramSecret(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("generate a salt: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("SCRAM secret: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(storedKey[:]), b64(serverKey)), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// mariaNativeHash returns the mysql_native_password hash of password as MariaDB stores it:
// "*" and the upper-case hexadecimal SHA1(SHA1(password)).
func mariaNativeHash(password string) string {
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return "*" + strings.ToUpper(hex.EncodeToString(h2[:]))
}

// writeSecretFile writes content to a new file name in the private directory dir, readable by
// id only (mode 0600), and returns its path. The caller removes it.
func writeSecretFile(dir, name string, id identity, content string) (string, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = id.chown(path, 0o600)
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}
