/** Where `mace run` and `mace results` keep their database unless told otherwise. */
export const DEFAULT_DB = 'runs/mace.duckdb';

/** `--db PATH` help text shared by every command that reads or writes a database. */
export const DB_OPTION_HELP = 'results database (a DuckDB file)';
