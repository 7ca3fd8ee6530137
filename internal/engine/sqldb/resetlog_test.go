package sqldb

import (
	"context"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// binlogBytes returns the binary log files of the server and their total size.
func binlogBytes(t *testing.T, e *serverEngine) (files int, bytes int64) {
	t.Helper()
	rows, err := e.SQL().QueryContext(context.Background(), "SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		var name string
		var size int64
		vals[0], vals[1] = &name, &size
		for i := 2; i < len(vals); i++ {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		files, bytes = files+1, bytes+size
	}
	return files, bytes
}

// TestServerResetLog checks that a managed MariaDB server's binary log, on by default as the
// references ran, is emptied by ResetLog (RESET MASTER, as np.sh runs between steps), and
// that a server without one has nothing to reset.
func TestServerResetLog(t *testing.T) {
	t.Parallel()
	c := serverCases()[1] // innodb
	e := c.openManaged(t)
	e.exec(t, "CREATE TABLE rl (a INT PRIMARY KEY, b VARCHAR(200))")
	for i := 0; i < 200; i++ {
		e.exec(t, "INSERT INTO rl VALUES (?, ?)", i, strings.Repeat("x", 200))
	}
	e.exec(t, "FLUSH BINARY LOGS")
	n, before := binlogBytes(t, e)
	if n < 2 || before < 40_000 {
		t.Fatalf("the binary log is not on: %d files, %d bytes", n, before)
	}
	lr, ok := e.DB.(engine.LogResetter)
	if !ok {
		t.Fatal("innodb does not implement engine.LogResetter")
	}
	if err := lr.ResetLog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, after := binlogBytes(t, e); n != 1 || after >= 4096 {
		t.Errorf("after ResetLog: %d files, %d bytes (before: %d bytes)", n, after, before)
	}

	settings := map[string]string{"skip_log_bin": ""}
	for k, v := range c.small {
		settings[k] = v
	}
	off, err := c.open(t, engine.Config{Settings: settings})
	if err != nil {
		t.Fatalf("open without a binary log: %v", err)
	}
	var on int
	if err := off.SQL().QueryRowContext(context.Background(), "SELECT @@GLOBAL.log_bin").Scan(&on); err != nil || on != 0 {
		t.Fatalf("skip_log_bin: log_bin %d, %v", on, err)
	}
	if err := off.DB.(engine.LogResetter).ResetLog(context.Background()); err != nil {
		t.Errorf("ResetLog without a binary log: %v", err)
	}
}
