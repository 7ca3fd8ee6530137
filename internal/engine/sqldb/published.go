package sqldb

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// The defaults of the managed servers are the configurations of the published Insert Benchmark
// results on a small server: mdcallag/mytools (commit e1ba3d9e), bench/conf/arc/jun24.pn53/, the
// files of an 8-core, 32 GB server ("c8r32"). Each Setting's Source names the file and says how
// a value was translated to MariaDB 10.11 or PostgreSQL 15, or scaled. docs/servers.md lists the
// files' settings that have no equivalent here.
//
// Sizes are the one deliberate departure: the published buffer pool, block cache, shared
// buffers, redo and WAL sizes are for 32 GB of RAM and scales far larger than a 2-core, 24 GB
// machine runs, so they are scaled to hold the "cached" scale here (a run overrides them with
// --set).
const (
	srcInnoDB  = "my.cnf.cz11a_c8r32"    // ma1011/etc/: MariaDB 10.11, InnoDB
	srcMyRocks = "my.cnf.cza1_c8r32"     // myrocks8032/: FB MySQL 8.0.32, MyRocks
	srcPG      = "conf.diff.cx10a_c8r32" // pg15/: PostgreSQL 15
	srcIIBench = "iibench.py --engine (engine= of its CREATE TABLE)"
	// MySQL's files of the same configuration (cz11a), for a managed MySQL from a basedir.
	srcMy56    = "my5651/my.cnf.cz11a_c8r32"                             // MySQL 5.6.51
	srcMy57    = "my5744/my.cnf.cz11a_c8r32"                             // MySQL 5.7.44
	srcMy8028  = "my8028/my.cnf.cz11a_c8r32"                             // MySQL 8.0.28
	srcMy8032  = "my8032/, my8036/, my8037/ my.cnf.cz11a_c8r32"          // MySQL 8.0.32 to 8.0.37 (the same file)
	srcMyAll   = "my5651/, my5744/, my8028/, my8032/ my.cnf.cz11a_c8r32" // every MySQL file
	srcMy57On  = "my5744/, my8028/, my8032/ my.cnf.cz11a_c8r32"          // the MySQL files from 5.7
	notOnMySQL = "; left out on MySQL (" + srcMyAll + " have none)"      // a MariaDB-only default
	notOnMy56  = "; left out on MySQL 5.6 (not set in " + srcMy56 + ")"  // a default from MySQL 5.7 on
	srcScaled  = " (size scaled to this machine)"
)

// tableEngineSetting is the name of the setting of the innodb and myrocks engines that names
// the storage engine of every table the workloads create.
const tableEngineSetting = "table_engine"

// mysqlCommon are the server settings the InnoDB and MyRocks configurations share, with src the
// file they come from.
func mysqlCommon(src string, maxBinlog string) []engine.Setting {
	perfSchema := src + ": performance_schema=1"
	if src == srcInnoDB {
		perfSchema += notOnMy56 + ": commented out there, 5.6's default is ON"
	}
	return []engine.Setting{
		{Name: "log_bin", Default: "binlog", Source: src + ": log_bin (here in the data directory)",
			Doc: "binary log on, as the references ran (their scripts run RESET MASTER): data directory/binlog.NNNNNN"},
		{Name: "server_id", Default: "77", Source: src, Doc: "server id, required with the binary log"},
		{Name: "binlog_format", Default: "ROW", Source: src, Doc: "row-based binary log"},
		{Name: "max_binlog_size", Default: maxBinlog, Source: src, Doc: "binary log file size before it rotates"},
		{Name: "sync_binlog", Default: "0", Source: src, Doc: "the binary log is not synced at commit (the OS writes it back)"},
		{Name: "sql_mode", Default: "NO_ENGINE_SUBSTITUTION,NO_UNSIGNED_SUBTRACTION", Source: src,
			Doc: "no strict mode; an unknown table engine is an error, not a silent substitution"},
		{Name: "default_tmp_storage_engine", Default: "MyISAM", Source: src, Doc: "engine of CREATE TEMPORARY TABLE"},
		{Name: "long_query_time", Default: "5", Source: src, Doc: "slow query threshold in seconds"},
		{Name: "performance_schema", Default: "ON", Source: perfSchema, Doc: "performance schema on"},
		{Name: "ssl", Default: "0", Source: src, Doc: "no TLS"},
		{Name: "character_set_server", Default: "latin1", Source: src, Doc: "server character set"},
		{Name: "collation_server", Default: "latin1_swedish_ci", Source: src, Doc: "server collation"},
		{Name: "eq_range_index_dive_limit", Default: "10", Source: src,
			Doc: "IN lists longer than this are estimated from index statistics, not dives"},
	}
}

// innodbSettings are the defaults of the innodb engine: its table engine, and the server
// variables it writes to my.cnf of a managed server (any other MariaDB variable is accepted as
// an override and passed on). From my.cnf.cz11a_c8r32 (see above).
func innodbSettings() []engine.Setting {
	s := []engine.Setting{
		portSetting(),
		baseDirSetting(),
		{Name: tableEngineSetting, Default: "InnoDB", Client: true, Source: srcIIBench,
			Doc: "storage engine of the benchmark tables (CREATE TABLE ... ENGINE=); also with --dsn, e.g. TokuDB"},
	}
	s = append(s, mysqlCommon(srcInnoDB, "256M")...)
	s = append(s, []engine.Setting{
		{Name: "query_cache_type", Default: "0", Source: srcInnoDB + notOnMySQL, Doc: "no query cache"},
		{Name: "query_cache_size", Default: "0", Source: srcInnoDB + notOnMySQL, Doc: "no query cache memory"},
		{Name: "slow_query_log", Default: "1", Source: srcInnoDB, Doc: "slow query log on (data directory/<host>-slow.log)"},
		{Name: "innodb_file_per_table", Default: "1", Source: srcInnoDB, Doc: "a tablespace file per table"},
		{Name: "innodb_data_file_path", Default: "ibdata1:12M:autoextend", Source: srcInnoDB + ": ibdata1:512M:autoextend" + srcScaled,
			Doc: "system tablespace"},
		{Name: "innodb_fast_shutdown", Default: "1", Source: srcInnoDB, Doc: "shutdown skips the full purge and change buffer merge"},
		{Name: "innodb_doublewrite", Default: "1", Source: srcInnoDB, Doc: "doublewrite buffer on"},
		{Name: "innodb_flush_method", Default: "O_DIRECT_NO_FSYNC", Source: srcInnoDB,
			Doc: "data files bypass the OS page cache, and are not fsynced after each write"},
		{Name: "innodb_autoinc_lock_mode", Default: "2", Source: srcInnoDB,
			Doc: "interleaved auto-increment locking: concurrent inserts into one table do not serialize on it"},
		{Name: "innodb_flush_neighbors", Default: "0", Source: srcInnoDB, Doc: "a page flush does not flush its neighbours (SSD)"},
		{Name: "innodb_buffer_pool_load_at_startup", Default: "OFF", Source: srcInnoDB + notOnMy56 + ", 5.6's default is OFF",
			Doc: "no buffer pool load when the server starts"},
		{Name: "innodb_buffer_pool_dump_at_shutdown", Default: "OFF", Source: srcInnoDB + notOnMy56 + ", 5.6's default is OFF",
			Doc: "no buffer pool dump when the server stops"},
		{Name: "innodb_purge_threads", Default: "4", Source: srcInnoDB, Doc: "purge threads"},
		{Name: "innodb_flush_log_at_trx_commit", Default: "2", Source: srcInnoDB,
			Doc: "a commit writes the redo log; it is synced once a second"},
		{Name: "innodb_buffer_pool_size", Default: "8G", Source: srcInnoDB + ": 23G" + srcScaled,
			Doc: "buffer pool; the cached scale (about 2 GB per table with its indexes) fits in it"},
		{Name: "innodb_log_file_size", Default: "2G", Source: srcInnoDB + ": 30G" + srcScaled +
			"; MySQL before 8.0.30: 128M (" + srcMy56 + ", " + srcMy57 + ", " + srcMy8028 + ": 2G, of 15 files" + srcScaled + "); none from 8.0.30 (innodb_redo_log_capacity)",
			Doc: "redo log size (one file, preallocated; MySQL: each of innodb_log_files_in_group): checkpoints are driven by it"},
		{Name: "innodb_max_dirty_pages_pct_lwm", Default: "80", Source: srcInnoDB, Doc: "dirty page percentage from which pre-flushing starts"},
		{Name: "innodb_max_dirty_pages_pct", Default: "90", Source: srcInnoDB, Doc: "dirty pages allowed in the buffer pool, in percent"},
		{Name: "innodb_io_capacity", Default: "10000", Source: srcInnoDB, Doc: "background flush rate in pages per second (an SSD)"},
		{Name: "innodb_io_capacity_max", Default: "20000", Source: srcInnoDB, Doc: "background flush rate when flushing is behind"},
		{Name: "innodb_adaptive_hash_index", Default: "OFF", Source: srcInnoDB, Doc: "no adaptive hash index"},
		{Name: "innodb_read_io_threads", Default: "4", Source: srcInnoDB, Doc: "background read threads"},
		{Name: "innodb_write_io_threads", Default: "4", Source: srcInnoDB, Doc: "background write threads"},
		{Name: "innodb_undo_tablespaces", Default: "32", Source: srcInnoDB + notOnMySQL,
			Doc: "undo logs in 32 undo tablespaces (undo001..undo032), set when the server is initialised"},
		{Name: "innodb_change_buffering", Default: "none", Source: srcInnoDB + notOnMySQL, Doc: "no change buffering of secondary index changes"},
		{Name: "innodb_checksum_algorithm", Default: "crc32", Source: srcInnoDB + "; on MySQL 5.6 only (" + srcMy56 + "; " + srcMy57On + " have none)",
			Doc: "page checksums"},
		{Name: "innodb_lru_scan_depth", Default: "5000", Source: srcInnoDB + notOnMySQL, Doc: "pages the page cleaner scans per buffer pool instance for free pages"},
		{Name: "innodb_max_purge_lag", Default: "500000", Source: srcInnoDB,
			Doc: "history list length above which DML is delayed so that purge keeps up"},
		{Name: "innodb_max_purge_lag_delay", Default: "1000000", Source: srcInnoDB, Doc: "the longest such delay, in microseconds"},
	}...)
	return append(s, mysqlOnlySettings()...)
}

// mysqlOnlySettings are the defaults of the innodb engine that MySQL's files of the published
// configuration (cz11a) have and MariaDB's has not: set on a managed MySQL of the versions
// whose file has them (mysqlVersions), left out on MariaDB.
func mysqlOnlySettings() []engine.Setting {
	return []engine.Setting{
		{Name: "default_authentication_plugin", Default: "mysql_native_password", Source: srcMyAll + "; MySQL 5.6 to 8.3 (8.4 has no such option)",
			Doc: "MySQL only: the authentication of new accounts (MariaDB's is already mysql_native_password)"},
		{Name: "innodb_buffer_pool_instances", Default: "4", Source: srcMyAll + "; MySQL only", Doc: "MySQL only: buffer pool instances"},
		{Name: "innodb_page_cleaners", Default: "4", Source: srcMy57On + "; MySQL 5.7.4 and later (" + srcMy56 + ": commented out, 5.6 has no such option)",
			Doc: "MySQL from 5.7.4: page cleaner threads"},
		{Name: "innodb_file_format", Default: "Barracuda", Source: srcMy56 + "; MySQL 5.6 only (" + srcMy57On + " have none)",
			Doc: "MySQL 5.6 only: the file format of new tables (Barracuda: compressed and dynamic rows)"},
		{Name: "innodb_file_format_max", Default: "Barracuda", Source: srcMy56 + "; MySQL 5.6 only (" + srcMy57On + " have none)",
			Doc: "MySQL 5.6 only: the newest file format the system tablespace is marked with"},
		{Name: "innodb_log_files_in_group", Default: "15", Source: srcMy56 + ", " + srcMy57 + ", " + srcMy8028 + "; MySQL 5.6 to 8.0.29 (innodb_redo_log_capacity from 8.0.30)",
			Doc: "MySQL before 8.0.30: redo log files, each of innodb_log_file_size"},
		{Name: "innodb_redo_log_capacity", Default: "2G", Source: srcMy8032 + ": 30G" + srcScaled + "; MySQL 8.0.30 and later",
			Doc: "MySQL from 8.0.30: redo log size, in place of innodb_log_file_size and innodb_log_files_in_group"},
		{Name: "innodb_dedicated_server", Default: "ON", Source: srcMy8028 + ", " + srcMy8032 + "; MySQL 8.0 and later",
			Doc: "MySQL from 8.0: sizes what is not set from the host's memory (the buffer pool and redo log are set)"},
		{Name: "innodb_idle_flush_pct", Default: "1", Source: srcMy8028 + ", " + srcMy8032 + "; MySQL 8.0.18 and later",
			Doc: "MySQL from 8.0.18: share of innodb_io_capacity flushed when the server is idle"},
		{Name: "loose_innodb_log_writer_threads", Default: "OFF", Source: srcMy8028 + ", " + srcMy8032 + "; MySQL 8.0.22 and later",
			Doc: "MySQL from 8.0.22: no dedicated redo log writer threads (loose: ignored where unknown)"},
	}
}

// mysqlVersion is a MySQL version as a number: 8.0.30 is 80030.
type mysqlVersion int

// parseMySQLVersion reads "8.0.33", "8.0.33-25" or "5.7.44" as a mysqlVersion.
func parseMySQLVersion(v string) (mysqlVersion, error) {
	num, _, _ := strings.Cut(v, "-")
	parts := strings.Split(num, ".")
	if len(parts) != 3 {
		return 0, fmt.Errorf("%q is not a MySQL version", v)
	}
	n := 0
	for _, p := range parts {
		d, err := strconv.Atoi(p)
		if err != nil || d < 0 || d > 99 {
			return 0, fmt.Errorf("%q is not a MySQL version", v)
		}
		n = n*100 + d
	}
	return mysqlVersion(n), nil
}

// mysqlVersions returns the MySQL versions [from, before) that have the published default
// name (before 0: no end), and whether it is a default for MySQL at all: the MariaDB-only
// defaults are not; innodb_log_file_size is, before 8.0.30 (with another value, mysqlValue).
// The ranges follow the files of my5651/ (5.6.51), my5744/, my8028/ and my8032/ on.
func mysqlVersions(name string) (from, before mysqlVersion, ok bool) {
	switch name {
	case "query_cache_type", "query_cache_size", "innodb_undo_tablespaces", "innodb_change_buffering",
		"innodb_lru_scan_depth":
		return 0, 0, false
	case "innodb_checksum_algorithm", "innodb_file_format", "innodb_file_format_max":
		return 0, 50700, true // my5651/ only
	case "performance_schema", "innodb_buffer_pool_load_at_startup", "innodb_buffer_pool_dump_at_shutdown":
		return 50700, 0, true // commented out or absent in my5651/
	case "innodb_page_cleaners":
		return 50704, 0, true // new in 5.7.4; commented out in my5651/
	case "default_authentication_plugin":
		return 0, 80400, true
	case "ssl":
		return 0, 80400, true // MySQL 8.4 has no --ssl
	case "innodb_log_file_size", "innodb_log_files_in_group":
		return 0, 80030, true
	case "innodb_redo_log_capacity":
		return 80030, 0, true
	case "innodb_dedicated_server":
		return 80000, 0, true
	case "innodb_idle_flush_pct":
		return 80018, 0, true
	case "loose_innodb_log_writer_threads":
		return 80022, 0, true
	}
	return 0, 0, true
}

// mysqlValue returns the MySQL default of a published setting whose value there differs
// from MariaDB's, or "".
func mysqlValue(name string) string {
	if name == "innodb_log_file_size" {
		return "128M" // 15 files of 2G published, scaled as MariaDB's 30G to 2G
	}
	return ""
}

// mysqlOnly reports whether name is a default of the innodb engine for MySQL only.
func mysqlOnly(name string) bool {
	for _, s := range mysqlOnlySettings() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// mysqlForProduct returns settings (the defaults of engine name merged with overrides) for
// a server of product at version: on MariaDB without the MySQL-only defaults; on MySQL and
// Percona Server without the MariaDB-only ones and the ones version does not know, with
// MySQL's values where they differ. An override always stays (the server's check then
// refuses a name it does not know).
func mysqlForProduct(product server.Product, version mysqlVersion, settings, overrides map[string]string) map[string]string {
	out := maps.Clone(settings)
	for name := range settings {
		if _, given := overrides[name]; given {
			continue
		}
		if product == server.ProductMariaDB {
			if mysqlOnly(name) {
				delete(out, name)
			}
			continue
		}
		from, before, ok := mysqlVersions(name)
		switch {
		case !ok || version < from || before > 0 && version >= before:
			delete(out, name)
		case mysqlValue(name) != "":
			out[name] = mysqlValue(name)
		}
	}
	return out
}

// mysqlVersioned is the versioned of the innodb and myrocks drivers: the settings for the
// product and version of the server of the setting basedir (mysqlForProduct), and that
// product and version when a basedir is given. MyRocks is run on MariaDB only: Facebook's
// MySQL and Percona Server's MyRocks are refused.
func mysqlVersioned(name string) func(settings, overrides map[string]string) (map[string]string, string, error) {
	return func(settings, overrides map[string]string) (map[string]string, string, error) {
		dir := settings[baseDir]
		if dir == "" {
			return mysqlForProduct(server.ProductMariaDB, 0, settings, overrides), "", nil
		}
		product, v, err := server.MySQLBinary(dir)
		if err != nil {
			return nil, "", err
		}
		label := v
		if product != server.ProductMariaDB {
			label = string(product) + " " + v
		}
		if product == server.ProductMariaDB {
			return mysqlForProduct(product, 0, settings, overrides), label, nil
		}
		if name == "myrocks" {
			return nil, "", fmt.Errorf("%s %s: MyRocks on MySQL (Facebook's MySQL, built in; Percona Server, the plugin ha_rocksdb) is not run managed: "+
				"the published MyRocks settings are carried over to MariaDB only and could not be checked on a MySQL here; "+
				"use a MariaDB basedir, or such a server with --dsn", product, v)
		}
		version, err := parseMySQLVersion(v)
		if err != nil {
			return nil, "", err
		}
		return mysqlForProduct(product, version, settings, overrides), label, nil
	}
}

// myrocksSettings are the defaults of the myrocks engine: its table engine, the plugin, and the
// MyRocks configuration of the published results, from FB MySQL 8.0.32 translated to MariaDB
// 10.11 (see above).
func myrocksSettings() []engine.Setting {
	s := []engine.Setting{
		portSetting(),
		baseDirSetting(),
		{Name: tableEngineSetting, Default: "ROCKSDB", Client: true, Source: srcIIBench,
			Doc: "storage engine of the benchmark tables (CREATE TABLE ... ENGINE=)"},
		{Name: "plugin_load_add", Default: "ha_rocksdb", Source: srcMyRocks + ": rocksdb (FB MySQL has MyRocks built in)",
			Doc: "loads the MyRocks storage engine (mariadb-plugin-rocksdb)"},
		{Name: "default_storage_engine", Default: "ROCKSDB", Source: srcMyRocks + ": default-storage-engine=rocksdb",
			Doc: "engine of a CREATE TABLE without ENGINE="},
	}
	s = append(s, mysqlCommon(srcMyRocks, "128M")...)
	return append(s, []engine.Setting{
		{Name: "binlog_checksum", Default: "CRC32", Source: srcMyRocks + ": crc32", Doc: "binary log event checksums"},
		{Name: "query_cache_type", Default: "0", Source: srcMyRocks + ": none (MySQL 8.0 has no query cache)", Doc: "no query cache"},
		{Name: "query_cache_size", Default: "0", Source: srcMyRocks + ": none (MySQL 8.0 has no query cache)", Doc: "no query cache memory"},
		{Name: "slow_query_log", Default: "0", Source: srcMyRocks, Doc: "no slow query log"},
		{Name: "transaction_isolation", Default: "READ-COMMITTED", Source: srcMyRocks + ": transaction-isolation",
			Doc: "isolation level of every transaction (LinkBench's README: read committed for MyRocks)"},
		{Name: "rocksdb_flush_log_at_trx_commit", Default: "2", Source: srcMyRocks,
			Doc: "a commit writes the WAL; it is synced once a second"},
		{Name: "rocksdb_block_cache_size", Default: "8G", Source: srcMyRocks + ": 20G" + srcScaled,
			Doc: "block cache; the cached scale fits in it"},
		{Name: "rocksdb_max_background_jobs", Default: "4",
			Source: srcMyRocks + ": rocksdb_max_background_compactions=3 + rocksdb_max_background_flushes=1 (MariaDB has only the sum)",
			Doc:    "flush and compaction threads"},
		{Name: "rocksdb_default_cf_options", Default: rocksCFOptions(rocksWriteBufferMB, false),
			Source: srcMyRocks + " (x6b)",
			Doc: "column family options (RocksDB option string): leveled compaction with dynamic level sizes, bloom filters, " +
				"32 MB memtables, no compression but LZ4 on the last level"},
		{Name: "rocksdb_block_size", Default: "8192", Source: srcMyRocks, Doc: "data block size in bytes"},
		{Name: "rocksdb_cache_index_and_filter_with_high_priority", Default: "ON", Source: srcMyRocks,
			Doc: "index and filter blocks go to the high-priority pool of the block cache"},
		{Name: "rocksdb_cache_high_pri_pool_ratio", Default: "0.5", Source: srcMyRocks, Doc: "share of the block cache for high-priority blocks"},
		{Name: "rocksdb_max_subcompactions", Default: "2", Source: srcMyRocks, Doc: "threads that split one compaction"},
		{Name: "rocksdb_compaction_sequential_deletes", Default: "14999", Source: srcMyRocks,
			Doc: "an SST file with this many deletes in a window is marked for compaction"},
		{Name: "rocksdb_compaction_sequential_deletes_count_sd", Default: "ON", Source: srcMyRocks, Doc: "single deletes count as deletes there"},
		{Name: "rocksdb_compaction_sequential_deletes_window", Default: "15000", Source: srcMyRocks, Doc: "the window, in keys"},
		{Name: "rocksdb_merge_combine_read_size", Default: "64M", Source: srcMyRocks, Doc: "memory of an index build's merge"},
	}...)
}

// rocksWriteBufferMB is the memtable size of the published MyRocks configuration, in MiB;
// rocksWriteBuffers is its number of memtables.
const (
	rocksWriteBufferMB = 32
	rocksWriteBuffers  = 4
)

// rocksCFOptions returns the column family options of the published MyRocks configuration
// with memtables of writeBufferMB MiB; partitioned adds partitioned index and filter blocks
// (RocksDB's kTwoLevelIndexSearch with partition_filters: only the top level of each is pinned,
// and a lookup reads a 4 KiB partition), which a memory cap needs (myrocksCapDefaults).
func rocksCFOptions(writeBufferMB int64, partitioned bool) string {
	table := "cache_index_and_filter_blocks=1;filter_policy=bloomfilter:10:false;whole_key_filtering=1"
	if partitioned {
		table += ";index_type=kTwoLevelIndexSearch;partition_filters=true;metadata_block_size=4096;pin_top_level_index_and_filter=true"
	}
	return "level_compaction_dynamic_level_bytes=true;" +
		"block_based_table_factory={" + table + "};" +
		fmt.Sprintf("optimize_filters_for_hits=true;max_write_buffer_number=%d;write_buffer_size=%dm;max_bytes_for_level_base=256m;",
			rocksWriteBuffers, writeBufferMB) +
		"compression_per_level=kNoCompression;bottommost_compression=kLZ4Compression"
}

// postgresSettings are the server variables the postgres engine writes to postgresql.conf of a
// managed server (any other PostgreSQL variable is accepted as an override and passed on), from
// conf.diff.cx10a_c8r32 (see above).
func postgresSettings() []engine.Setting {
	return []engine.Setting{
		portSetting(),
		binDirSetting("PostgreSQL", "postgres, initdb and pg_config", "/opt/postgresql-17/bin"),
		{Name: "huge_pages", Default: "off", Source: srcPG, Doc: "no huge pages"},
		{Name: "max_parallel_workers_per_gather", Default: "0", Source: srcPG,
			Doc: "no parallel query: every client is one backend"},
		{Name: "max_parallel_workers", Default: "0", Source: srcPG, Doc: "no parallel workers"},
		{Name: "checkpoint_warning", Default: "1800s", Source: srcPG, Doc: "log checkpoints forced by WAL volume closer than this"},
		{Name: "wal_sync_method", Default: "fdatasync", Source: srcPG, Doc: "how the WAL is synced"},
		{Name: "wal_level", Default: "replica", Source: srcPG, Doc: "WAL for a replica"},
		{Name: "full_page_writes", Default: "on", Source: srcPG, Doc: "full page images after each checkpoint"},
		{Name: "track_io_timing", Default: "on", Source: srcPG, Doc: "time block reads and writes"},
		{Name: "synchronous_commit", Default: "off", Source: srcPG,
			Doc: "commits do not wait for the WAL fsync (the WAL writer syncs within 3 x wal_writer_delay)"},
		{Name: "shared_buffers", Default: "8GB", Source: srcPG + ": 23GB" + srcScaled,
			Doc: "buffer pool; the cached scale (about 2 GB per table with its indexes) fits in it"},
		{Name: "bgwriter_lru_maxpages", Default: "2000", Source: srcPG, Doc: "buffers the background writer writes per round"},
		{Name: "bgwriter_delay", Default: "100ms", Source: srcPG, Doc: "time between background writer rounds"},
		{Name: "wal_compression", Default: "off", Source: srcPG, Doc: "no compression of full-page images in the WAL"},
		{Name: "max_wal_size", Default: "16GB", Source: srcPG + ": 40GB" + srcScaled,
			Doc: "WAL volume that forces a checkpoint; large, so that checkpoint_timeout spaces them"},
		{Name: "min_wal_size", Default: "8GB", Source: srcPG + ": 20GB" + srcScaled + ", half of max_wal_size as there",
			Doc: "WAL kept for recycling"},
		{Name: "log_autovacuum_min_duration", Default: "0", Source: srcPG, Doc: "every autovacuum run is logged (server.log)"},
		{Name: "log_checkpoints", Default: "on", Source: srcPG, Doc: "checkpoints are logged (server.log)"},
		{Name: "checkpoint_timeout", Default: "1800s", Source: srcPG, Doc: "time between checkpoints"},
		{Name: "checkpoint_completion_target", Default: "0.9", Source: srcPG, Doc: "checkpoint writes spread over this share of the interval"},
		{Name: "autovacuum", Default: "on", Source: srcPG + ": not set (PostgreSQL's default, on)",
			Doc: "autovacuum runs during the benchmark; its debt shows as dead_tuples and autovacuum_runs"},
		{Name: "autovacuum_max_workers", Default: "4", Source: srcPG, Doc: "autovacuum workers"},
		{Name: "autovacuum_naptime", Default: "10s", Source: srcPG, Doc: "delay between autovacuum runs on a database"},
		{Name: "autovacuum_vacuum_cost_delay", Default: "1ms", Source: srcPG, Doc: "autovacuum sleep when its cost limit is reached"},
		{Name: "autovacuum_vacuum_cost_limit", Default: "4000", Source: srcPG, Doc: "autovacuum I/O budget per cost delay"},
		{Name: "autovacuum_vacuum_scale_factor", Default: "0.05", Source: srcPG,
			Doc: "a table is vacuumed when 5% of its rows are dead"},
		{Name: "autovacuum_vacuum_insert_scale_factor", Default: "0.05", Source: srcPG + "; PostgreSQL 13 and later (pg10/ to pg12/'s files have none)",
			Doc: "a table is vacuumed when 5% of its rows were inserted since the last vacuum"},
		{Name: "autovacuum_work_mem", Default: "256MB", Source: srcPG, Doc: "memory of each autovacuum worker for dead tuple ids"},
		{Name: "jit", Default: "off", Source: srcPG + "; PostgreSQL 11 and later (pg10/'s file has none)", Doc: "no JIT compilation of queries"},
		{Name: "vacuum_buffer_usage_limit", Default: "256MB", Source: "pg16/, pg17/ conf.diff.cx10a_c8r32: PostgreSQL 16 and later only",
			Doc: "the ring of buffers a vacuum uses"},
	}
}

// pgFirstMajor returns the first PostgreSQL major version that knows the published setting
// name, for the settings that the reference's per-version files (mytools
// bench/conf/arc/jun24.pn53/pgN/conf.diff.cx10a_c8r32, N from 10 to 17) leave out before it;
// 0 for every other setting.
func pgFirstMajor(name string) int {
	switch name {
	case "jit":
		return 11 // pg10/ has none
	case "autovacuum_vacuum_insert_scale_factor":
		return 13 // pg10/ to pg12/ have none
	case "vacuum_buffer_usage_limit":
		return 16 // pg16/ and pg17/ add it
	}
	return 0
}

// The PostgreSQL versions the reference has published configurations for: pg10/ to pg17/ of
// mytools bench/conf/arc/jun24.pn53, and pg18_o2nofp/ of bench/conf/arc/oct24/c8r32.
const (
	pgOldestPublished = 10
	pgNewestPublished = 18
)

// checkPublishedVersion refuses a PostgreSQL major version that the published settings were
// not made for.
func checkPublishedVersion(version string, major int) error {
	if major < pgOldestPublished || major > pgNewestPublished {
		return fmt.Errorf("PostgreSQL %s: the published settings are for PostgreSQL %d to %d (the reference's per-version files, docs/fidelity.md), not this version",
			version, pgOldestPublished, pgNewestPublished)
	}
	return nil
}

// postgresForVersion returns settings (the defaults merged with overrides) for a server of
// major version major, as the reference's file of that version has them: a published default
// that the version does not know is left out; an override is kept (the server's check then
// refuses it, naming it).
func postgresForVersion(major int, settings, overrides map[string]string) map[string]string {
	out := maps.Clone(settings)
	for name := range settings {
		if _, given := overrides[name]; !given && major < pgFirstMajor(name) {
			delete(out, name)
		}
	}
	return out
}

// The settings of the managed servers under a memory cap C (engine.Driver.CapDefaults; the
// formulas and their reasons are in docs/engines.md). The server's process tree runs in the
// cap: its caches take a quarter to a half of it, and the rest is the server's own memory (the
// performance schema, connections, the merge and sort buffers, sized here to fit) and the page
// cache of what the engine does not read or write with O_DIRECT.

// mariaCapDefaults are the settings of a MariaDB server (innodb and myrocks) under a cap:
// InnoDB's log buffer of C/32, at most MariaDB's 16 MiB, and below a cap of 1 GiB no
// performance schema, which takes about 96 MiB of a MariaDB 10.11 server's memory at any cap
// (measured here; docs/engines.md).
func mariaCapDefaults(capBytes int64) map[string]string {
	m := map[string]string{"innodb_log_buffer_size": mariaMiB(min(engine.CapMiB(capBytes, 32, 2), 16))}
	if capBytes < mariaPerfSchemaCap {
		m["performance_schema"] = "OFF"
	}
	return m
}

// mariaPerfSchemaCap is the smallest cap under which a MariaDB server keeps its performance
// schema.
const mariaPerfSchemaCap = 1 << 30

// innodbCapDefaults: a buffer pool of half the cap (the data files already bypass the page
// cache: innodb_flush_method=O_DIRECT_NO_FSYNC), and mariaCapDefaults.
func innodbCapDefaults(capBytes int64) map[string]string {
	m := mariaCapDefaults(capBytes)
	m["innodb_buffer_pool_size"] = mariaMiB(engine.CapMiB(capBytes, 2, 8))
	return m
}

// myrocksCapDefaults: direct reads and direct flushes and compactions with 1 MiB compaction
// readahead, as the published IO-bound MyRocks ran (mytools bench/conf/arc/oct24/c8r16/
// fbmy5635_rel_o2nofp_210407_f896415f_6190/etc/my.cnf.cy13a, y13a), so that the block cache is
// the only cache of the data; a block cache of max(C/4, C/2 - 128 MiB); the published four
// memtables of C/32 each, at most its 32 MiB; index builds' merge buffers of C/64, at most the
// published 64 MiB: the Insert Benchmark builds the indexes of all its tables at once (four in
// the iobound preset), each ALTER with its own two buffers, and with C/16 the four took the
// server from 330 MB to the 512 MiB cap at the start of l.x (y13a's
// rocksdb_writable_file_max_buffer_size=1M has no MariaDB variable).
// The index and filter blocks are partitioned: whole, those of the iobound data outgrew a
// 128 MiB block cache, and every insert's unique check read them from the device (l.i1 at 200
// rows/s, 1.16 GB/s of reads; partitioned, 22.7k rows/s). The server keeps InnoDB for MariaDB's
// system tables (docs/servers.md), with a buffer pool of C/64 (8 MiB to MariaDB's default 128
// MiB); and mariaCapDefaults.
func myrocksCapDefaults(capBytes int64) map[string]string {
	m := mariaCapDefaults(capBytes)
	merge := mariaMiB(min(engine.CapMiB(capBytes, 64, 1), 64))
	maps.Copy(m, map[string]string{
		"rocksdb_block_cache_size":                       mariaMiB(max(engine.CapMiB(capBytes, 4, 8), engine.CapMiB(capBytes, 2, 0)-128)),
		"rocksdb_default_cf_options":                     rocksCFOptions(min(engine.CapMiB(capBytes, 32, 1), rocksWriteBufferMB), true),
		"rocksdb_use_direct_reads":                       "ON",
		"rocksdb_use_direct_io_for_flush_and_compaction": "ON",
		"rocksdb_compaction_readahead_size":              "1M",
		"rocksdb_merge_buf_size":                         merge,
		"rocksdb_merge_combine_read_size":                merge,
		"innodb_buffer_pool_size":                        mariaMiB(min(engine.CapMiB(capBytes, 64, 8), 128)),
	})
	return m
}

// postgresCapDefaults: shared buffers of a quarter of the cap (PostgreSQL 15 has no direct IO:
// its reads go through the page cache, which the cap charges and which has most of the rest);
// autovacuum_work_mem of C/32 for each of the four workers (at most the published 256 MB),
// maintenance_work_mem (index builds) of C/16 and work_mem of C/64, at most PostgreSQL's 64 MB
// and 4 MB. wal_buffers stays at its default, 1/32 of shared_buffers.
func postgresCapDefaults(capBytes int64) map[string]string {
	return map[string]string{
		"shared_buffers":       pgMB(engine.CapMiB(capBytes, 4, 16)),
		"autovacuum_work_mem":  pgMB(min(engine.CapMiB(capBytes, 32, 1), 256)),
		"maintenance_work_mem": pgMB(min(engine.CapMiB(capBytes, 16, 1), 64)),
		"work_mem":             pgMB(min(engine.CapMiB(capBytes, 64, 1), 4)),
	}
}

// mariaMiB is a MariaDB size of n MiB.
func mariaMiB(n int64) string { return fmt.Sprintf("%dM", n) }

// pgMB is a PostgreSQL size of n MiB.
func pgMB(n int64) string { return fmt.Sprintf("%dMB", n) }
