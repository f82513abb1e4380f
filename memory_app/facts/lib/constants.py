"""The facts agent's constants (``facts-data-contract.md`` 2.8), hard-coded in the agent."""

AGENT_MODEL = "all-MiniLM-L6-v2"  # a module constant in the agent, not a setting
DIMENSION = 384
DUPLICATE_THRESHOLD = 0.95  # W1 and W3, compared with >=
BORDERLINE_BAND = 1e-6  # predictions within this of 0.95 are unreliable (2.8)
SIMILAR_THRESHOLD = 0.85  # "possible contradictions" tier (ours, not the agent's)
RETRIEVAL_TOP_K = 3  # live retrieval, no similarity floor
FACT_TYPE = "fact"
DEFAULT_COLLECTION = "memories"
TEXT_INDEX_NAME = "fact_content_search"
