// How many of the graph's indexes FalkorDB is still building: an index
// created on a label that has nodes is filled in the background, and a query
// planned on it meanwhile can crash FalkorDB 4.16 (IndexSpec_GetField).
CALL db.indexes() YIELD status
WHERE status <> 'OPERATIONAL'
RETURN count(status) AS building
