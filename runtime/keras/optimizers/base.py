"""``Optimizer``: the state and the update loop every Keras 3 optimizer shares.

An optimizer's state (the iteration count, the learning rate, each variable's
slots: momentum, moments) lives in variables, made when the optimizer is built
(``build(var_list)``, or at the first ``apply_gradients``), and every update is
an assign op: the same code runs eagerly and inside a traced training step.

One update (``apply(grads, variables)``, or ``apply_gradients(zip(grads,
variables))``), in Keras 3's order: gradients that are None are dropped (a
warning names their variables), the rest are divided by ``loss_scale_factor``,
clipped (``clipnorm``, ``clipvalue`` or ``global_clipnorm``), the variables not
excluded lose ``weight_decay * learning_rate`` of themselves, the optimizer's
own rule updates each variable, the moving averages are updated (``use_ema``),
each variable's ``constraint`` is applied, and ``iterations`` counts one. With
``gradient_accumulation_steps=n`` the gradients are summed for ``n`` calls and
their mean applied on the n-th; ``iterations`` counts the updates.

The learning rate is a float (held in a variable: settable, as callbacks set
it, without retracing), a ``LearningRateSchedule`` (called with the iteration
count) or a callable of no arguments.

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> sgd = rt.keras.optimizers.SGD(learning_rate=0.1)
>>> _ = sgd.apply_gradients([(rt.constant([1.0, -1.0]), w)])
>>> w.numpy(), int(sgd.iterations.numpy())
(array([0.9, 2.1], dtype=float32), 1)
"""

from __future__ import annotations

import numbers
import os
import re
import sys
import warnings

import numpy as np

from runtime.core import context, dtypes
from runtime.core.graph import name_scope
from runtime.functions.control_flow import cond
from runtime.gradients.tape import GradientTape
from runtime.keras.loss_base import as_loss_dtype
from runtime.keras.optimizers import clipping, schedules
from runtime.keras.optimizers.keras_api import KerasOptimizerAPI
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, constant
from runtime.ops.math_ops import equal, floordiv, mod, not_equal
from runtime.state import deferred
from runtime.state.variables import Variable


class Optimizer(KerasOptimizerAPI):
    """The base of optimizers (``keras.optimizers.Optimizer``).

    A subclass names its per-variable slots in ``slot_names`` and defines
    ``_update(grad, variable, slots, lr)``, the assign ops of its rule; ``_rate(lr)`` may
    turn the learning rate into this step's rate once for all variables (Adam's bias
    correction). A user's optimizer may instead, as in Keras, override ``build`` and define
    ``update_step`` (``runtime.keras.optimizers.keras_api``).
    """

    slot_names = ()
    slots_made_apart = ()  # slots Keras makes in a loop of their own, after the others

    def __init__(
        self,
        learning_rate,
        weight_decay=None,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        **kwargs,
    ):
        if kwargs.pop("decay", None) is not None:
            warnings.warn(
                "Argument `decay` is no longer supported and will be ignored.", stacklevel=2
            )
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        _check_accumulation(gradient_accumulation_steps)
        if use_ema:
            _check_ema(ema_momentum, ema_overwrite_frequency)
        clipping.check_clip_arguments(clipnorm, clipvalue, global_clipnorm)
        self.name = name or type(self).__name__
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.use_ema, self.ema_momentum = use_ema, ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._trainable_variables = []
        self._variable_index = {}  # id(variable) -> its position in _trainable_variables
        self._added_variables = []  # made by add_variable (a user's build, Nadam)
        self._slots = {}  # id(variable) -> {slot name: Variable}
        self._slot_primaries = {}  # id(variable) -> variable (held, as Keras holds them)
        self._excluded_ids, self._excluded_names = set(), None
        # Made now, as Keras 3 makes them: a checkpoint restored later assigns them at once,
        # and a learning rate set after the restore stays.
        self._iterations = self._state_variable(0, "iter", dtypes.int64)
        self._learning_rate = self._as_learning_rate(learning_rate)

    # --- the learning rate and the step ------------------------------------------------------

    def _as_learning_rate(self, learning_rate):
        """A schedule or callable as it is; a number as a float32 variable."""
        if isinstance(learning_rate, schedules.LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if hasattr(learning_rate, "numpy"):  # a tensor or variable: its value
            learning_rate = learning_rate.numpy()
        if isinstance(learning_rate, np.ndarray | np.generic) and np.size(learning_rate) == 1:
            learning_rate = learning_rate.item()
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise ValueError(
                "Argument `learning_rate` should be float, or an instance of "
                "LearningRateSchedule, or a callable (that takes in the current iteration value "
                "and returns the corresponding learning rate value). "
                f"Received instead: learning_rate={learning_rate}"
            )
        return self._state_variable(float(learning_rate), "learning_rate")

    @property
    def iterations(self):
        """How many updates were applied: an int64 variable (with gradient accumulation, the
        calls over ``gradient_accumulation_steps``)."""
        if self.gradient_accumulation_steps:
            return floordiv(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    @property
    def learning_rate(self):
        """The current learning rate: the variable, or the schedule's (callable's) value now."""
        if isinstance(self._learning_rate, schedules.LearningRateSchedule):
            step = self._iterations
            if not self._learning_rate.takes_integer_step:  # 0.1 / (step + 1) then works
                step = cast(step, dtypes.float32)
            return self._learning_rate(step)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return self._learning_rate()

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, schedules.LearningRateSchedule) or callable(value):
            self._learning_rate = value  # the old variable is no longer the optimizer's
            return
        if not isinstance(self._learning_rate, Variable):
            if isinstance(self._learning_rate, schedules.LearningRateSchedule):
                raise TypeError(
                    "This optimizer was created with a `LearningRateSchedule` object as its "
                    "`learning_rate` constructor argument, hence its learning rate is not "
                    "settable. If you need the learning rate to be settable, you should "
                    "instantiate the optimizer with a float `learning_rate` argument."
                )
            self._learning_rate = self._as_learning_rate(value)
            return
        self._learning_rate.assign(value)

    lr = learning_rate

    def _step_number(self, dtype):
        """This update's number, from 1, as ``dtype`` (Adam's bias correction uses it)."""
        return cast(self.iterations + 1, dtype)

    # --- state -------------------------------------------------------------------------------

    def _state_variable(self, value, name, dtype=dtypes.float32):
        with context.eager_mode(), name_scope(self.name + "/"):
            return Variable(value, dtype=dtype, trainable=False, name=name)

    def _all_slot_names(self):
        """The slots of each variable: the moving average and the gradient sum where asked
        for (as Keras' base makes them), then the optimizer's own."""
        shared = ("average",) if self.use_ema else ()
        if self.gradient_accumulation_steps:
            shared += ("gradient_accumulator",)
        return shared + tuple(self.slot_names)

    def _slot_initial_value(self, slot, zeros):
        """A slot's value when made: zeros, as Keras (not ``variable * 0``: NaN for inf)."""
        return zeros

    def get_slot(self, variable, name):
        """The slot ``name`` (``"momentum"``, ``"m"``, ``"v"``, ``"rms"``...) of ``variable``."""
        return self._slots[id(variable._primary())][name]

    @property
    def variables(self):
        """The optimizer's own variables, in Keras 3's order (the order a ``.keras`` file
        stores them in): iterations, the learning rate (when it is a variable), every moving
        average, every gradient sum, then each variable's slots in turn (slots Keras makes
        apart, Adam's ``vhat``, after all of those)."""
        own = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            own.append(self._learning_rate)
        slot_sets = list(self._slots.values())
        shared = [n for n in self._all_slot_names() if n not in self.slot_names]
        interleaved = [n for n in self.slot_names if n not in self.slots_made_apart]
        own += [slots[n] for n in shared for slots in slot_sets]
        own += [slots[n] for slots in slot_sets for n in interleaved]
        own += [
            slots[n] for n in self.slots_made_apart if n in self.slot_names for slots in slot_sets
        ]
        return own + self._added_variables

    def build(self, var_list):
        """Makes the slots of every variable in ``var_list``. A subclass may override it (as
        Keras' do) to add variables of its own; it is called once, before the first update."""
        self._register(var_list)
        self.built = True

    def _register(self, var_list):
        """Makes the slots of the variables not seen yet, and remembers their order."""
        for variable in var_list:
            key = id(variable._primary())
            if key not in self._variable_index:
                self._slots_of(variable)
                self._variable_index[key] = len(self._trainable_variables)
                self._trainable_variables.append(variable)

    def _slots_of(self, variable):
        # A variable passed to a traced function is a stand-in there: its slots are the
        # variable's own, on every trace.
        variable = variable._primary()
        slots = self._slots.get(id(variable))
        if slots is None:
            slots = self._slots[id(variable)] = {}
            self._slot_primaries[id(variable)] = variable
            base = variable.name.removesuffix(":0")
            zeros = np.zeros(variable.shape.as_list(), variable.dtype.as_numpy_dtype)
            for slot in self._all_slot_names():
                value = self._slot_initial_value(slot, zeros)
                slots[slot] = self._state_variable(value, f"{base}/{slot}", variable.dtype)
                # A restored checkpoint may wait for it, by its variable.
                deferred.attached(self, deferred.slot_key(variable, slot), slots[slot])
        return slots

    def set_weights(self, weights):
        """Assigns ``weights`` (arrays, in ``variables`` order) to the optimizer's variables."""
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been built. "
                "Please call `optimizer.build(trainable_variables)` to create the optimizer "
                "weights before calling `set_weights()`."
            )
        for variable, weight in zip(self.variables, weights):
            weight = np.asarray(weight)
            if tuple(variable.shape.as_list()) != weight.shape:
                raise ValueError(
                    f"Optimizer variable {variable.name} has shape {variable.shape} not "
                    f"compatible with provided weight shape {weight.shape}."
                )
            variable.assign(weight.astype(variable.dtype.as_numpy_dtype))

    def get_weights(self):
        """The values of ``variables``, as numpy arrays."""
        return [v.numpy() for v in self.variables]

    def _trackable_children(self):
        """The optimizer's own state for a checkpoint: ``iterations``, ``learning_rate``. Its
        slots are saved with their variables (``_slot_variables``), as TensorFlow records them
        on the variable's node: a restore finds a slot by its variable's path."""
        children = {"iterations": self._iterations}
        if isinstance(self._learning_rate, Variable):
            children["learning_rate"] = self._learning_rate
        return children

    def _slot_variables(self):
        """``[(variable, slot name, slot variable)]``, in the order the slots were made."""
        return [
            (self._slot_primaries[key], name, slot)
            for key, slots in self._slots.items()
            for name, slot in slots.items()
        ]

    def _existing_slot(self, variable, name):
        """``variable``'s slot ``name``, or None before the first update of ``variable``."""
        variable = variable._primary()
        if self._slot_primaries.get(id(variable)) is not variable:
            return None
        return self._slots[id(variable)].get(name)

    # --- weight decay ------------------------------------------------------------------------

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Leaves the variables of ``var_list``, and those whose name contains one of
        ``var_names`` (regular expressions), out of weight decay. Call it before building."""
        if self.built:
            raise ValueError(
                "`exclude_from_weight_decay()` can only be configured before the optimizer is "
                "built."
            )
        self._excluded_ids = {id(v._primary()) for v in var_list or ()}
        self._excluded_names = re.compile("|".join(set(var_names))) if var_names else None

    def _use_weight_decay(self, variable):
        if id(variable._primary()) in self._excluded_ids:
            return False
        return self._excluded_names is None or not self._excluded_names.search(variable.name)

    def _apply_weight_decay(self, variables, lr):
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                decay = cast(lr, variable.dtype) * self.weight_decay
                variable.assign(variable - variable * decay)

    # --- updating ----------------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Updates each variable with its gradient (pairs whose gradient is None are skipped);
        then counts one iteration. Returns the new iteration count."""
        pairs = list(grads_and_vars)
        return self.apply([g for g, _ in pairs], [v for _, v in pairs])

    def apply(self, grads, trainable_variables=None):
        """``apply_gradients`` with the gradients and the variables as two lists; without
        variables, those the optimizer was built with."""
        grads = list(grads)
        if not grads:  # nothing to update, as Keras
            return self._iterations
        variables = self._variables_for(grads, trainable_variables)
        if not self.built:  # as Keras: for every variable given, a gradient or not
            self.build(variables)
        grads, variables = _present(grads, variables)
        self._register(variables)  # the slots, made before any update or branch
        grads = [as_loss_dtype(g, v.dtype) for g, v in zip(grads, variables)]
        if self.loss_scale_factor is not None:
            grads = [g / self.loss_scale_factor for g in grads]
        if self.gradient_accumulation_steps:
            self._accumulate_or_update(grads, variables)
        else:
            self._update_all(grads, variables)
        self._update_moving_averages(self._trainable_variables)  # every one, as Keras
        self._apply_constraints(variables)
        return self._iterations.assign_add(1)

    def _variables_for(self, grads, trainable_variables):
        if trainable_variables is not None:
            variables = list(trainable_variables)
            for variable in variables:
                if not isinstance(variable, Variable):
                    raise TypeError(f"apply_gradients needs variables, got {variable!r}")
            return variables
        if not self.built:
            raise ValueError(
                "When passing `grads` without `variables`, the optimizer must already be built "
                "on a list of variables. Call `optimizer.build(trainable_variables)` first. "
            )
        if len(grads) != len(self._trainable_variables):
            raise ValueError(
                "When passing `grads` as a list of gradient tensors, the gradients must match "
                f"`optimizer.variables` one-to-on. Received a list of {len(grads)} gradients, "
                f"but the optimizer is tracking {len(self._trainable_variables)} trainable "
                "variables."
            )
        return list(self._trainable_variables)

    def _update_all(self, grads, variables):
        """Clipping, weight decay and the optimizer's rule, for every variable."""
        grads = self._clip_gradients(grads)
        lr = as_loss_dtype(self.learning_rate, dtypes.float32)
        self._apply_weight_decay(variables, lr)
        rate = self._rate(lr)
        for grad, variable in zip(grads, variables):
            if self._has_update_step():  # a user's rule, Keras' way
                self.update_step(grad, variable, rate)
            else:
                self._update(grad, variable, self._slots_of(variable), cast(rate, variable.dtype))

    def _clip_gradients(self, grads):
        return clipping.clip_gradients(grads, self.clipnorm, self.clipvalue, self.global_clipnorm)

    def _accumulate_or_update(self, grads, variables):
        """Adds the gradients to their sums; every n-th call, applies the sums' mean and
        starts the sums again (a ``cond``: one traced step serves both)."""
        steps = self.gradient_accumulation_steps
        sums = [self._slots_of(v)["gradient_accumulator"] for v in variables]

        def update():
            self._update_all([(g + s) / float(steps) for g, s in zip(grads, sums)], variables)
            for total in sums:
                total.assign(total * 0.0)
            return constant(0)

        def accumulate():
            for grad, total in zip(grads, sums):
                total.assign_add(grad)
            return constant(0)

        cond(equal(mod(self._iterations + 1, steps), 0), update, accumulate)

    def _update_moving_averages(self, variables):
        """``average = m average + (1 - m) variable``, with ``m = 0`` at the first step; the
        variables take their averages every ``ema_overwrite_frequency`` steps."""
        if not self.use_ema:
            return
        not_first = cast(not_equal(self.iterations, 0), dtypes.float32)
        for variable in variables:
            average = self._slots_of(variable)["average"]
            momentum = cast(not_first * self.ema_momentum, variable.dtype)
            average.assign(momentum * average + (1.0 - momentum) * variable)
        if self.ema_overwrite_frequency:
            due = equal(mod(self.iterations + 1, self.ema_overwrite_frequency), 0)
            for variable in variables:
                variable.assign(where(due, self._slots_of(variable)["average"], variable))

    def _apply_constraints(self, variables):
        """Each variable's ``constraint`` (a layer's ``kernel_constraint``...), applied after
        the update as Keras applies it."""
        for variable in variables:
            constraint = getattr(variable._primary(), "constraint", None)
            if constraint is not None:
                variable.assign(constraint(variable))

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, gives each variable its moving average (``fit`` calls it at the
        end of training)."""
        if not self.use_ema:
            return
        for variable in var_list:
            average = self._existing_slot(variable, "average")
            if average is not None:
                variable.assign(average)

    def scale_loss(self, loss):
        """``loss`` times ``loss_scale_factor`` (as it is without one)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def _rate(self, lr):
        """The rate this update applies to every variable: the learning rate (Adam corrects
        it for the step), computed once per update."""
        return lr

    def _update(self, grad, variable, slots, lr):
        """Updates ``variable`` (and its ``slots``) with assign ops, at rate ``lr``."""
        raise NotImplementedError

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` (a function of no arguments, or a tensor computed
        under ``tape``) for ``var_list`` and applies them."""
        if callable(loss):
            with GradientTape() as tape:
                value = loss()
        elif tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed to minimize()")
        else:
            value = loss
        var_list = list(var_list() if callable(var_list) else var_list)
        grads = tape.gradient(value, var_list)
        return self.apply_gradients(zip(grads, var_list))

    # --- config ------------------------------------------------------------------------------

    def get_config(self):
        """The arguments that rebuild this optimizer (without its state), Keras 3's keys."""
        return {
            "name": self.name,
            "learning_rate": self._learning_rate_config(),
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    def _learning_rate_config(self):
        if isinstance(self._learning_rate, schedules.LearningRateSchedule):
            return schedules.serialize(self._learning_rate)
        if isinstance(self._learning_rate, Variable):
            return float(self._learning_rate.numpy())
        return self._learning_rate  # a callable: as it is (Keras serializes a registered one)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The optimizer ``get_config`` described (a schedule rebuilt from its dict)."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<rt.keras.optimizers.{type(self).__name__}>"


def _present(grads, variables):
    """The pairs whose gradient is not None; a warning names the variables without one,
    ValueError when none has one."""
    missing = [v.name for g, v in zip(grads, variables) if g is None]
    if len(missing) == len(variables):
        raise ValueError(f"No gradients provided for any variable: {missing}.")
    if missing:
        warnings.warn(
            f"Gradients do not exist for variables {missing} when minimizing the loss. If "
            "using `model.compile()`, did you forget to provide a `loss` argument?",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
    return [g for g, _ in kept], [v for _, v in kept]


def _user_stacklevel():
    """The stack level of the first frame outside this package: the user's own call."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _check_accumulation(steps):
    if steps and not steps >= 2:
        raise ValueError(
            "`gradient_accumulation_steps` must be an integer >= 2. "
            f"Received: gradient_accumulation_steps={steps}"
        )


def _check_ema(momentum, overwrite_frequency):
    if momentum > 1 or momentum < 0:
        raise ValueError(
            f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={momentum}"
        )
    if overwrite_frequency and (
        not isinstance(overwrite_frequency, int) or overwrite_frequency < 1
    ):
        raise ValueError(
            "`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
            f"ema_overwrite_frequency={overwrite_frequency}"
        )
