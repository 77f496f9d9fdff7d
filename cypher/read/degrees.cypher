// The out- or in-degree histogram of the units at one end of LINK edges (a
// unit's own links, not its subtree's; multiplicity counted, so the edge is
// named: FalkorDB counts anonymous parallel edges once): how many units have
// each degree.  {end}: s (the source) or t (the target)
MATCH (s:Unit)-[l:LINK]->(t:Unit)
WITH {end}, count(l) AS degree
RETURN degree, count(*) AS units
