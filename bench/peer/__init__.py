"""The admin peer of the records page: a throwaway model with the same 15
column types as the benchmark's remote object, shown by a Django admin
changelist. Bench-only: it has no migrations (its table is created with
`migrate --run-syncdb` in the benchmark's throwaway database) and is never an
installed app of the console."""
