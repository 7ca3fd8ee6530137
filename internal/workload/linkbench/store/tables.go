package store

// SQLTables returns the tables the SQL store creates (Create): the names of the document
// store's collections too.
func SQLTables() []string { return []string{linkTable, countTable, nodeTable} }
