"""``rt.train.list_variables``: TensorFlow's keys for a checkpoint's variables and slots."""

import runtime as rt


def test_variables_and_optimizer_slots_are_listed_by_tensorflow_s_keys(tmp_path):
    model = rt.Module()
    model.w = rt.Variable([[1.0, 2.0, 3.0]])
    optimizer = rt.keras.optimizers.Adam(0.1)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(model.w * model.w)
    optimizer.apply_gradients([(tape.gradient(loss, model.w), model.w)])
    manager_dir = tmp_path / "run"
    rt.train.CheckpointManager(
        rt.train.Checkpoint(model=model, opt=optimizer), str(manager_dir), max_to_keep=1
    ).save()
    listed = dict(rt.train.list_variables(str(manager_dir)))  # the newest in a directory
    assert listed["_CHECKPOINTABLE_OBJECT_GRAPH"] == []
    assert listed["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == [1, 3]
    assert listed["model/w/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"] == [1, 3]
    assert listed["model/w/.OPTIMIZER_SLOT/opt/v/.ATTRIBUTES/VARIABLE_VALUE"] == [1, 3]
    assert listed["opt/iterations/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert list(dict(rt.train.list_variables(str(manager_dir)))) == sorted(listed)
