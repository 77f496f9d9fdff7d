// For every unit of $ids: its number of children, the number of links held in
// its subtree (what a walk's link move divides by: out-links counted over the
// whole collection, multiplicity included; stored with the unit at load,
// cypher/load/held.cypher, absent for none), and whether it is a root.
// Portable openCypher (see walk_into); an id no unit has gives no row.
UNWIND $ids AS id
MATCH (x:Unit {uid: id})
OPTIONAL MATCH (x)-[c:CHILD]->(:Unit)
RETURN id, count(c) AS children, coalesce(x.held, 0) AS links, x.depth = 0 AS root
