// AxPRE c* (downward bisimulation), one depth level, deepest first: the class of a
// unit is its tag with the set of its children's classes (bottom-up, written to
// u._cstar; the store runs this for depth = max depth .. 0)
MATCH (u:Unit {depth: $depth})
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit)
WITH u, c._cstar AS k
ORDER BY k
WITH u, collect(DISTINCT k) AS ks
SET u._cstar = u.tag + '(' + reduce(s = '', k IN ks | s + k + ',') + ')'
