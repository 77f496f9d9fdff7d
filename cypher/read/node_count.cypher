// Whether the graph holds a node other than graphprum's Meta node (0: an empty
// store; 1 at most, so the question costs the same on any store)
MATCH (n)
WHERE NOT n:Meta
WITH n LIMIT 1
RETURN count(n) AS n
