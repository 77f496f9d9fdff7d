// Remove units left incomplete by an interrupted load (in batches until 0)
MATCH (u:IncompleteUnit)
WITH u LIMIT 20000
DETACH DELETE u
RETURN count(*) AS n
