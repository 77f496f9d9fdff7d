// One backward step of a user's walk into some units: for every unit of $ids,
// the units a user moves from to reach it in one move, how, and by how many
// edges.  'link': a unit whose subtree holds links arriving at it (the unit
// holding a link and each unit containing that one, found by walking CHILD
// up from the holder: a few edges, where a pre/post interval test scanned the
// document); with $structure also 'child' (its parent moves down to it) and
// 'parent' (each of its children moves up to it).  Portable openCypher (Neo4j 5,
// FalkorDB, LadybugDB): no APOC, no subqueries, no label expressions; the LINK
// relationship named (FalkorDB 4.16 counts parallel edges once when it is not),
// WITH between the matches (FalkorDB otherwise scans every Unit).  LadybugDB
// bounds the unbounded CHILD*0.. at 30 levels (var_length_extend_max_depth).
UNWIND $ids AS id
MATCH (s:Unit)-[l:LINK]->(:Unit {uid: id})
WITH id, s, l
MATCH (h:Unit)-[:CHILD*0..]->(s)
RETURN h.uid AS source, id AS target, 'link' AS move, count(l) AS n
UNION ALL
UNWIND $ids AS id
MATCH (p:Unit)-[:CHILD]->(:Unit {uid: id})
WHERE $structure
RETURN p.uid AS source, id AS target, 'child' AS move, 1 AS n
UNION ALL
UNWIND $ids AS id
MATCH (:Unit {uid: id})-[:CHILD]->(c:Unit)
WHERE $structure
RETURN c.uid AS source, id AS target, 'parent' AS move, 1 AS n
