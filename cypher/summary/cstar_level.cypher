// AxPRE c* (downward bisimulation), one depth level, deepest first: the class of
// an element is its tag with the set of its child elements' classes (the store
// runs this for depth = max depth .. 0; summary/cstar_keys.cypher then writes
// the readable keys)
MATCH (u:Unit {kind: 0, depth: $depth})
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit {kind: 0})
WITH u, c._part AS k
ORDER BY k
WITH u, collect(DISTINCT k) AS ks
SET u._part = u.tag + '(' + reduce(s = '', k IN ks | s + k + ',') + ')'
