MATCH (u:Unit)
RETURN count(DISTINCT u.tag) AS tags, count(DISTINCT u.path) AS paths
