// Remove the units of documents left incomplete by an interrupted load
// (in batches until 0)
UNWIND $names AS name
MATCH (u:Unit {doc: name})
WITH u LIMIT 20000
DETACH DELETE u
RETURN count(*) AS n
