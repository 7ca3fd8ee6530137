package sqldb

import (
	"database/sql"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// Every default has its source, and the sizes scaled to this machine say so.
func TestPublishedSources(t *testing.T) {
	for _, c := range serverCases() {
		for _, s := range c.driver.Settings {
			if s.Name == "port" {
				continue
			}
			if s.Source == "" {
				t.Errorf("%s: setting %s has no source", c.driver.Name, s.Name)
			}
		}
		for _, size := range []string{"innodb_buffer_pool_size", "innodb_log_file_size", "rocksdb_block_cache_size",
			"shared_buffers", "max_wal_size"} {
			if i := slices.IndexFunc(c.driver.Settings, func(s engine.Setting) bool { return s.Name == size }); i >= 0 &&
				!strings.Contains(c.driver.Settings[i].Source, "scaled") {
				t.Errorf("%s: size %s does not say it is scaled: %q", c.driver.Name, size, c.driver.Settings[i].Source)
			}
		}
	}
}

// notVariables are settings of the defaults that the running server does not show as a
// variable of the same name and value (checked otherwise, or not at all).
var notVariables = map[string]bool{
	"port": true, "plugin_load_add": true, "ssl": true, "log_bin": true,
}

// TestPostgresForVersion: the published defaults that a major version does not know are left
// out, as the reference's file of that version leaves them out; an override stays.
func TestPostgresForVersion(t *testing.T) {
	defs := engine.MergeSettings(postgresSettings(), nil)
	for _, c := range []struct {
		major     int
		overrides map[string]string
		without   []string
	}{
		{10, nil, []string{"jit", "autovacuum_vacuum_insert_scale_factor", "vacuum_buffer_usage_limit"}},
		{12, nil, []string{"autovacuum_vacuum_insert_scale_factor", "vacuum_buffer_usage_limit"}},
		{15, nil, []string{"vacuum_buffer_usage_limit"}},
		{17, nil, nil},
		{10, map[string]string{"jit": "on"}, []string{"autovacuum_vacuum_insert_scale_factor", "vacuum_buffer_usage_limit"}},
	} {
		got := postgresForVersion(c.major, engine.MergeSettings(postgresSettings(), c.overrides), c.overrides)
		if len(got) != len(defs)-len(c.without) {
			t.Errorf("PostgreSQL %d (%v): %d settings, want %d without %v", c.major, c.overrides, len(got), len(defs)-len(c.without), c.without)
		}
		for _, name := range c.without {
			if _, ok := got[name]; ok {
				t.Errorf("PostgreSQL %d: %s is set", c.major, name)
			}
		}
		if v, ok := c.overrides["jit"]; ok && got["jit"] != v {
			t.Errorf("PostgreSQL %d: the override jit=%s is %q", c.major, v, got["jit"])
		}
	}
}

// mariaVariable maps a setting to the variable MariaDB 10.11 shows it as.
var mariaVariable = map[string]string{"transaction_isolation": "tx_isolation"}

// checkInForce checks that every server setting of want (the engine's defaults merged with the
// test's overrides) is in force on the engine's server, and that the binary log is on where the
// defaults turn it on.
func checkInForce(t *testing.T, c serverCase, db *sql.DB, want map[string]string) {
	t.Helper()
	n := 0
	for _, s := range c.driver.Settings {
		if _, in := want[s.Name]; s.Client || notVariables[s.Name] || !in && (pgFirstMajor(s.Name) > 0 || mysqlOnly(s.Name)) { // a version's or product's published settings only
			continue
		}
		checkVariable(t, c, db, s.Name, want[s.Name])
		n++
	}
	if n < 10 {
		t.Errorf("%s: only %d settings checked", c.driver.Name, n)
	}
	if c.driver.Name == "postgres" {
		return
	}
	var on int
	var base string
	if err := db.QueryRow("SELECT @@GLOBAL.log_bin, @@GLOBAL.log_bin_basename").Scan(&on, &base); err != nil || on != 1 ||
		!strings.HasSuffix(base, "/"+want["log_bin"]) {
		t.Errorf("%s: log_bin = %d, log_bin_basename = %q (%v), want on with %s", c.driver.Name, on, base, err, want["log_bin"])
	}
	var file string
	var pos int64
	var rest []any
	rows, err := db.Query("SHOW MASTER STATUS")
	if err != nil {
		t.Fatalf("SHOW MASTER STATUS: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		t.Fatalf("%s: SHOW MASTER STATUS: no binary log", c.driver.Name)
	}
	rest = make([]any, len(cols)-2)
	for i := range rest {
		rest[i] = new(sql.RawBytes)
	}
	if err := rows.Scan(append([]any{&file, &pos}, rest...)...); err != nil || !strings.HasPrefix(file, want["log_bin"]+".") || pos <= 0 {
		t.Errorf("%s: SHOW MASTER STATUS = %q, %d (%v)", c.driver.Name, file, pos, err)
	}
}

// checkVariable checks that the server variable name of the engine's server is in force with
// the value want, in the normal form of both.
func checkVariable(t *testing.T, c serverCase, db *sql.DB, name, want string) {
	t.Helper()
	var got, norm string
	var err error
	if c.driver.Name == "postgres" {
		var unit string
		err = db.QueryRow("SELECT setting, coalesce(unit, '') FROM pg_settings WHERE name = $1", name).Scan(&got, &unit)
		got, norm = pgNormal(got, unit), pgNormal(want, unit)
	} else {
		v := name
		if m, ok := mariaVariable[v]; ok {
			v = m
		}
		err = db.QueryRow("SELECT CAST(@@GLOBAL." + v + " AS CHAR)").Scan(&got)
		got, norm = mariaNormal(got), mariaNormal(want)
	}
	if err != nil || got != norm {
		t.Errorf("%s: %s = %q (%v), want %q (%q)", c.driver.Name, name, got, err, norm, want)
	}
}

// mariaSize matches a MariaDB size with a suffix.
var mariaSize = regexp.MustCompile(`^([0-9]+)([KMGT])$`)

// mariaNormal is a MariaDB setting's value in the form SELECT @@var shows it: sizes in bytes,
// booleans as 1 and 0, numbers in their shortest form, sets sorted, in upper case.
func mariaNormal(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	switch v {
	case "ON", "TRUE":
		return "1"
	case "OFF", "FALSE":
		return "0"
	}
	if m := mariaSize.FindStringSubmatch(v); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return strconv.FormatInt(n<<(10*(strings.Index("KMGT", m[2])+1)), 10)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if strings.Contains(v, ",") && !strings.Contains(v, "=") {
		parts := strings.Split(v, ",")
		slices.Sort(parts)
		return strings.Join(parts, ",")
	}
	return v
}

// pgValue matches a PostgreSQL value with an optional unit.
var pgValue = regexp.MustCompile(`^(-?[0-9.]+)\s*([A-Za-z]*)$`)

// pgUnits are PostgreSQL's units in bytes and milliseconds.
var pgUnits = map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
	"ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}

// pgNormal is a PostgreSQL value in base units (bytes, milliseconds): a number with a unit,
// of its own or else in unit (pg_settings' unit, e.g. "8kB"); a boolean as on/off; anything
// else in lower case.
func pgNormal(v, unit string) string {
	v = strings.TrimSpace(v)
	if m := pgValue.FindStringSubmatch(v); m != nil {
		f, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			switch {
			case m[2] != "":
				f *= pgUnits[m[2]]
			case unit != "":
				u := pgValue.FindStringSubmatch(unit)
				mult, base := 1.0, unit
				if u != nil {
					mult, _ = strconv.ParseFloat(u[1], 64)
					base = u[2]
				}
				f *= mult * pgUnits[base]
			}
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return "on"
	case "off", "false", "no", "0":
		return "off"
	}
	return strings.ToLower(v)
}

func TestNormalForms(t *testing.T) {
	tests := []struct{ a, b string }{
		{mariaNormal("256M"), mariaNormal("268435456")},
		{mariaNormal("ON"), mariaNormal("1")},
		{mariaNormal("NO_ENGINE_SUBSTITUTION,NO_UNSIGNED_SUBTRACTION"), mariaNormal("NO_UNSIGNED_SUBTRACTION,NO_ENGINE_SUBSTITUTION")},
		{mariaNormal("0.5"), mariaNormal("0.500000")},
		{pgNormal("8GB", "8kB"), pgNormal("1048576", "8kB")},
		{pgNormal("1800s", "s"), pgNormal("1800", "s")},
		{pgNormal("100ms", "ms"), pgNormal("100", "ms")},
		{pgNormal("16GB", "MB"), pgNormal("16384", "MB")},
		{pgNormal("0", "ms"), pgNormal("0", "ms")},
		{pgNormal("off", ""), pgNormal("off", "")},
	}
	for i, tt := range tests {
		if tt.a != tt.b {
			t.Errorf("%d: %q != %q", i, tt.a, tt.b)
		}
	}
	differ := []struct{ a, b string }{
		{mariaNormal("256M"), mariaNormal("128M")},
		{pgNormal("8GB", "8kB"), pgNormal("1024", "8kB")},
		{pgNormal("30min", "s"), pgNormal("1799", "s")},
		{pgNormal("lz4", ""), pgNormal("off", "")},
	}
	for i, tt := range differ {
		if tt.a == tt.b {
			t.Errorf("differ %d: both %q", i, tt.a)
		}
	}
}

// TestMySQLForProduct: on a managed MySQL the published defaults are MySQL's file of its
// version (cz11a of my5651/, my5744/, my8028/, my8032/): no query cache and none of MariaDB's
// own settings; on 5.6 the Barracuda file format and crc32 checksums, no page cleaners and no
// performance schema or buffer pool dump settings; 15 redo log files before 8.0.30,
// innodb_redo_log_capacity from it; on MariaDB none of MySQL's. An override stays.
func TestMySQLForProduct(t *testing.T) {
	defs := engine.MergeSettings(innodbSettings(), nil)
	for _, c := range []struct {
		product   server.Product
		version   string
		overrides map[string]string
		want      map[string]string
		without   []string
	}{
		{server.ProductMariaDB, "", nil, map[string]string{"innodb_log_file_size": "2G", "query_cache_type": "0", "innodb_undo_tablespaces": "32",
			"innodb_checksum_algorithm": "crc32"},
			[]string{"innodb_redo_log_capacity", "innodb_log_files_in_group", "innodb_dedicated_server", "default_authentication_plugin", "innodb_page_cleaners",
				"innodb_file_format", "innodb_file_format_max"}},
		{server.ProductMySQL, "5.6.51", nil,
			map[string]string{"innodb_log_file_size": "128M", "innodb_log_files_in_group": "15", "innodb_buffer_pool_instances": "4",
				"default_authentication_plugin": "mysql_native_password", "innodb_checksum_algorithm": "crc32", "innodb_file_format": "Barracuda",
				"innodb_file_format_max": "Barracuda", "ssl": "0", "innodb_flush_method": "O_DIRECT_NO_FSYNC", "innodb_buffer_pool_size": "8G"},
			[]string{"innodb_page_cleaners", "performance_schema", "innodb_buffer_pool_load_at_startup", "innodb_buffer_pool_dump_at_shutdown",
				"innodb_redo_log_capacity", "innodb_dedicated_server", "innodb_idle_flush_pct", "loose_innodb_log_writer_threads",
				"query_cache_type", "query_cache_size", "innodb_undo_tablespaces", "innodb_change_buffering", "innodb_lru_scan_depth"}},
		{server.ProductMySQL, "5.6.51", map[string]string{"performance_schema": "OFF", "innodb_page_cleaners": "2"},
			map[string]string{"performance_schema": "OFF", "innodb_page_cleaners": "2"}, []string{"innodb_buffer_pool_dump_at_shutdown"}},
		{server.ProductMySQL, "5.7.44", nil,
			map[string]string{"innodb_log_file_size": "128M", "innodb_log_files_in_group": "15", "innodb_page_cleaners": "4", "ssl": "0",
				"default_authentication_plugin": "mysql_native_password", "innodb_buffer_pool_size": "8G", "performance_schema": "ON",
				"innodb_buffer_pool_dump_at_shutdown": "OFF"},
			[]string{"innodb_redo_log_capacity", "innodb_dedicated_server", "innodb_idle_flush_pct", "loose_innodb_log_writer_threads",
				"query_cache_type", "query_cache_size", "innodb_undo_tablespaces", "innodb_change_buffering", "innodb_lru_scan_depth",
				"innodb_checksum_algorithm", "innodb_file_format", "innodb_file_format_max"}},
		{server.ProductMySQL, "8.0.28", nil,
			map[string]string{"innodb_log_file_size": "128M", "innodb_dedicated_server": "ON", "innodb_idle_flush_pct": "1", "loose_innodb_log_writer_threads": "OFF"},
			[]string{"innodb_redo_log_capacity", "query_cache_type"}},
		{server.ProductPercona, "8.0.33-25", nil,
			map[string]string{"innodb_redo_log_capacity": "2G", "innodb_buffer_pool_instances": "4", "default_authentication_plugin": "mysql_native_password"},
			[]string{"innodb_log_file_size", "innodb_log_files_in_group", "query_cache_type", "innodb_checksum_algorithm"}},
		{server.ProductMySQL, "8.4.0", map[string]string{"query_cache_type": "1"}, map[string]string{"innodb_redo_log_capacity": "2G", "query_cache_type": "1"},
			[]string{"default_authentication_plugin", "ssl"}},
	} {
		var v mysqlVersion
		if c.version != "" {
			var err error
			if v, err = parseMySQLVersion(c.version); err != nil {
				t.Fatal(err)
			}
		}
		got := mysqlForProduct(c.product, v, engine.MergeSettings(innodbSettings(), c.overrides), c.overrides)
		for name, want := range c.want {
			if got[name] != want {
				t.Errorf("%s %s: %s = %q, want %q", c.product, c.version, name, got[name], want)
			}
		}
		for _, name := range c.without {
			if v, ok := got[name]; ok {
				t.Errorf("%s %s: %s = %q, want it left out", c.product, c.version, name, v)
			}
		}
		if len(got) >= len(defs) {
			t.Errorf("%s %s: %d settings of %d: none left out", c.product, c.version, len(got), len(defs))
		}
	}
	if v, err := parseMySQLVersion("8.0.30"); err != nil || v != 80030 {
		t.Errorf("8.0.30 = %d (%v)", v, err)
	}
}
