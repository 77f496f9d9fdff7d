// Remove Attribute nodes no unit carries any more (after documents were removed)
MATCH (a:Attribute)
OPTIONAL MATCH (a)<-[h:HAS_ATTRIBUTE]-(:Unit)
WITH a, count(h) AS n
WHERE n = 0
DELETE a
