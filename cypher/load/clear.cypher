// Remove everything graphprum stored (in batches: the store repeats until 0)
MATCH (n)
WHERE n:Unit OR n:Document OR n:Attribute OR n:PendingLink OR n:Summary OR n:Meta
   OR n:CStarClass
WITH n LIMIT 20000
DETACH DELETE n
RETURN count(*) AS n
