// Scan one node of each label graphprum deletes from, before a deletion on
// FalkorDB: FalkorDB 4.16 deletes a node found through an index wrongly when the
// graph grew past its matrices' size since the node's label matrix was last
// read (the node stays under its label without properties; reads then fail with
// "Attempted to access undefined attribute" or crash the server).  A scan of the
// label brings the matrix to the graph's size (see BoltConnection.write).
MATCH (n:Unit) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:Document) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:PendingLink) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:Attribute) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:Summary) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:CStarClass) WITH n LIMIT 1 RETURN count(n) AS n
UNION ALL
MATCH (n:Meta) WITH n LIMIT 1 RETURN count(n) AS n
