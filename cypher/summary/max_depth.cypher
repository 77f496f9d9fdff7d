MATCH (u:Unit {kind: 0})
RETURN max(u.depth) AS depth
