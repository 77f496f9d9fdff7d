// AxPRE c* (downward bisimulation), one depth level, deepest first: the key of
// an element is its tag with the set of its child elements' classes (their
// _cid, sorted); the store runs this for depth = max depth .. 0, each level
// followed by summary/cstar_classes.cypher and summary/cstar_ids.cypher, which
// give every distinct key a class id shared by all depths (keys stay short:
// nesting the children's keys themselves grows without bound and crashed
// FalkorDB 4.16)
MATCH (u:Unit {kind: 0, depth: $depth})
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit {kind: 0})
WITH u, c._cid AS k
ORDER BY k
WITH u, collect(DISTINCT k) AS ks
SET u._part = u.tag + '(' + reduce(s = '', k IN ks | s + toString(k) + ',') + ')'
