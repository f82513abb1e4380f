"""Cypher of curation: exact reads of a node's state and the writes that change it.
Values are parameters; ``{labels}`` and ``{rel_type}`` are formatted only after
:mod:`.identifiers` checked them. Every write runs inside one transaction
(``GraphStore.curate``), so a crash half-way leaves the graph as it was.
"""

NODE_STATE = """
MATCH (n) WHERE elementId(n) = $id
OPTIONAL MATCH (n)-[r]-(o)
WITH n, collect(DISTINCT CASE WHEN r IS NULL THEN NULL ELSE {
  rid: elementId(r), type: type(r), outgoing: startNode(r) = n,
  other_id: elementId(o), other_labels: labels(o),
  other_key: CASE WHEN o:Source THEN o.source_id ELSE o.name END,
  props: properties(r)} END) AS rels
RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props, rels
"""

# Entities (not :Source) with this name, under any label.
NODES_NAMED = """
MATCH (n)
WHERE NOT n:Source AND n.name = $name
RETURN elementId(n) AS id, labels(n) AS labels
"""

NODE_REF = """
MATCH (n) WHERE elementId(n) = $id
RETURN labels(n) AS labels, CASE WHEN n:Source THEN n.source_id ELSE n.name END AS key
"""

# {label} checked.
NODES_BY_KEY = """
MATCH (n:{label})
WHERE (n:Source AND n.source_id = $key) OR (NOT n:Source AND n.name = $key)
RETURN elementId(n) AS id
"""

SET_NODE_PROPS = "MATCH (n) WHERE elementId(n) = $id SET n = $props"

DETACH_DELETE_NODE = "MATCH (n) WHERE elementId(n) = $id DETACH DELETE n"

DELETE_NODE_RELATIONSHIPS = "MATCH (n)-[r]-() WHERE elementId(n) = $id DELETE r"

# {labels} is ``:A:B`` of checked labels.
CREATE_NODE = "CREATE (n{labels}) SET n = $props RETURN elementId(n) AS id"

# {rel_type} checked. $rows: [{start, end, props}] by element id.
CREATE_RELATIONSHIPS = """
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.start
MATCH (b) WHERE elementId(b) = row.end
CREATE (a)-[r:{rel_type}]->(b)
SET r = row.props
RETURN count(r) AS n
"""

# {rel_type} checked.
CREATE_ONE_RELATIONSHIP = """
MATCH (a) WHERE elementId(a) = $start
MATCH (b) WHERE elementId(b) = $end
CREATE (a)-[r:{rel_type}]->(b)
SET r = $props
RETURN elementId(r) AS rid
"""

SET_RELATIONSHIP_PROPS = """
UNWIND $rows AS row
MATCH ()-[r]->() WHERE elementId(r) = row.rid
SET r = row.props
RETURN count(r) AS n
"""

RELATIONSHIP_STATE = """
MATCH (a)-[r]->(b) WHERE elementId(r) = $rid
RETURN elementId(r) AS rid, type(r) AS type, properties(r) AS props,
       elementId(a) AS start_id, labels(a) AS start_labels, a.name AS start_key,
       elementId(b) AS end_id, labels(b) AS end_labels, b.name AS end_key
"""

# {rel_type} checked; both ends are entities named by (label, name), labels as parameters.
RELATIONSHIPS_BETWEEN = """
MATCH (a)-[r:{rel_type}]->(b)
WHERE NOT a:Source AND NOT b:Source
  AND $start_label IN labels(a) AND a.name = $start_name
  AND $end_label IN labels(b) AND b.name = $end_name
RETURN elementId(r) AS rid
"""

DELETE_RELATIONSHIP = "MATCH ()-[r]->() WHERE elementId(r) = $rid DELETE r"

# Same name (case-insensitive) under more than one label, or twice under one.
SAME_NAME_GROUPS = """
MATCH (n)
WHERE NOT n:Source AND n.name IS NOT NULL
WITH toLower(n.name) AS key,
     collect({id: elementId(n), label: labels(n)[0], name: n.name,
              mentions: coalesce(n.mention_count, 0)}) AS nodes
WHERE size(nodes) > 1
RETURN key, nodes
ORDER BY size(nodes) DESC, key
LIMIT $limit
"""

# An entity whose name is an alias of another entity of the same label: the agent, which
# never reads aliases, re-created it after a rename or a merge.
RECREATED_NAMES = """
MATCH (holder)
WHERE NOT holder:Source AND holder.aliases IS NOT NULL
UNWIND holder.aliases AS alias
MATCH (n)
WHERE n.name = alias AND n <> holder AND NOT n:Source AND labels(n)[0] = labels(holder)[0]
RETURN {id: elementId(holder), label: labels(holder)[0], name: holder.name,
        mentions: coalesce(holder.mention_count, 0)} AS holder,
       {id: elementId(n), label: labels(n)[0], name: n.name,
        mentions: coalesce(n.mention_count, 0)} AS entity
ORDER BY entity.mentions DESC, entity.label, entity.name
LIMIT $limit
"""

LABELS_IN_USE = "CALL db.labels() YIELD label RETURN label ORDER BY label"

SHOW_INDEXES = """
SHOW INDEXES YIELD name, labelsOrTypes, properties, state
RETURN name, labelsOrTypes, properties, state
"""

# {name} is built by the store from a checked label; {label} is checked.
CREATE_NAME_INDEX = "CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.name)"
CREATE_SOURCE_INDEX = "CREATE INDEX qqweb_source_id IF NOT EXISTS FOR (s:Source) ON (s.source_id)"

AWAIT_INDEXES = "CALL db.awaitIndexes($timeout_s)"
