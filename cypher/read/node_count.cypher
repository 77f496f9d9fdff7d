// Whether the graph holds a node other than graphprum's Meta node (0: an empty
// store; 1 at most, so the question costs the same on any store).  Only the
// Meta node keyed 'graphprum' is graphprum's: another program's :Meta nodes
// count, so a bulk load never replaces a graph holding them (coalesce: a
// missing key is NULL, and NOT NULL would drop the node from the count)
MATCH (n)
WHERE NOT (n:Meta AND coalesce(n.key = 'graphprum', false))
WITH n LIMIT 1
RETURN count(n) AS n
