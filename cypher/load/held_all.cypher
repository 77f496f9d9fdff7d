// load/held.cypher for every unit of a graph that holds one load only (a
// GRAPH.BULK load's new graph, where FalkorDB is still building the indexes
// that held.cypher's lookups by document need): one pass over the LINK edges
MATCH (s:Unit)-[l:LINK]->(:Unit)
WITH s, l
MATCH (a:Unit)-[:CHILD*0..]->(s)
WITH a, count(l) AS held
SET a.held = held
