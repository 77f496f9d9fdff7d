MATCH (d:Document)
WHERE d.complete
MATCH (u:Unit {doc: d.name})
RETURN count(DISTINCT u.tag) AS tags, count(DISTINCT u.path) AS paths
