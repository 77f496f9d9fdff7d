// Forget the partition keys of the last derivation (in batches until 0)
MATCH (u:Unit)
WHERE u._part IS NOT NULL
WITH u LIMIT 50000
SET u._part = null
RETURN count(*) AS n
