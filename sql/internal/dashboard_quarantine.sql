-- Dashboard: quarantined files (the first $limit by path) with the first reason, and how many there are.
SELECT
    path,
    size,
    n_errors,
    split_part(reason, chr(10), 1) AS first_reason,
    run_id,
    count(*) OVER () AS total
FROM quarantine
ORDER BY path
LIMIT CAST($limit AS INTEGER)
