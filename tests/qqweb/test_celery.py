from qqweb.tasks import stores_health_task


def test_a_task_makes_a_round_trip_through_the_real_worker(celery_worker):
    result = stores_health_task.delay().get(timeout=60)
    statuses = {s["name"]: s for s in result}
    # The worker checked the stores from its own process, with its own settings.
    assert statuses["mongodb"]["up"] is True
    assert statuses["mongodb"]["detail"] == "qqtest_worker.notes"
    assert statuses["neo4j"]["up"] is True
    assert statuses["memory_dir"]["detail"] == celery_worker["MEMORY_DIR"]
    assert statuses["broker"]["up"] is True
