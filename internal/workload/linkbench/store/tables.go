package store

// SQLTables returns the tables the SQL store creates (Create).
func SQLTables() []string { return []string{linkTable, countTable, nodeTable} }
