// LINK edges into some units, with their multiplicity (one step of the
// backward neighbourhood of a walk).  The relationship is named: FalkorDB 4.16
// counts parallel edges once when it is not.
UNWIND $ids AS id
MATCH (s:Unit)-[l:LINK]->(:Unit {uid: id})
RETURN s.uid AS source, id AS target, count(l) AS n
