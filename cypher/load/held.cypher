// held: the number of LINK edges held in each unit's subtree (multiplicity
// counted), what nav/walk_degrees.cypher reads, for the units of documents
// $names (after load/held_clear.cypher).  Only units that hold links get the
// property (a unit without it holds none: writing 0 on every unit cost
// FalkorDB 8 s for 300k units); each link counts for its holder and every
// unit above it, walking CHILD up (count, not sum: FalkorDB's sum of integers
// is a float; WITH between the matches: see resolve_links_to).  A document's
// units are in one statement ($names is split between documents), so every
// count is whole.
UNWIND $names AS name
MATCH (s:Unit {doc: name})-[l:LINK]->(:Unit)
WITH s, l
MATCH (a:Unit)-[:CHILD*0..]->(s)
WITH a, count(l) AS held
SET a.held = held
