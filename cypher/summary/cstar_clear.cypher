// Forget the scratch c* classes (in batches until 0)
MATCH (c:CStarClass)
WITH c LIMIT 50000
DELETE c
RETURN count(*) AS n
