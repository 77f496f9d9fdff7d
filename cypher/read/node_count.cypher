// Nodes in the graph other than graphprum's Meta node (0: an empty store)
MATCH (n)
WHERE NOT n:Meta
RETURN count(n) AS n
