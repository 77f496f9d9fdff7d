// Drop an attribute property that is no longer among the most frequent names
// ({property}: the name in backquotes); in batches until 0
MATCH (u:Unit)
WHERE u.{property} IS NOT NULL
WITH u LIMIT 20000
SET u.{property} = null
RETURN count(*) AS n
