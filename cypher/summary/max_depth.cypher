MATCH (u:Unit)
RETURN max(u.depth) AS depth
