// Nodes that are not graphprum's
MATCH (n)
WHERE NOT (n:Unit OR n:Document OR n:Attribute OR n:PendingLink OR n:Summary OR n:Meta
           OR n:CStarClass)
RETURN count(n) AS n
