"""``ds.train``: TF1's training API: optimizers, the global step, and checkpoints.

==========================  ==============================================================
``Optimizer``               the base class: ``minimize``, ``compute_gradients``,
                            ``apply_gradients`` (``optimizer.py``)
``GradientDescentOptimizer``  ``var -= lr * grad``
``MomentumOptimizer``       slot ``<var>/Momentum``, optionally Nesterov
``AdamOptimizer``           slots ``<var>/Adam``, ``<var>/Adam_1``; ``beta1_power``,
                            ``beta2_power``
``RMSPropOptimizer``        slots ``rms`` (ones), ``momentum``; ``centered`` adds ``mg``
``AdagradOptimizer``        slot ``<var>/Adagrad`` from ``initial_accumulator_value``
``AdadeltaOptimizer``       slots ``<var>/Adadelta``, ``<var>/Adadelta_1``
``FtrlOptimizer``           FTRL-proximal: slots ``<var>/Ftrl`` (accum), ``<var>/Ftrl_1``
                            (linear); L1, L2 and shrinkage-type L2
``AdagradDAOptimizer``      Adagrad dual averaging: slots ``<var>/AdagradDA`` (gradient
                            sums), ``<var>/AdagradDA_1`` (squares); L1, L2; the global step
``Proximal...Optimizer``    ``ProximalGradientDescent``, ``ProximalAdagrad`` (slot
                            ``<var>/ProximalAdagrad``): a step, then L1/L2 shrinkage
``SyncReplicasOptimizer``   synchronous replicas: gradients averaged in accumulators on
                            the ps, applied by the chief, tokens hand out the next step
                            (``sync_replicas.py``)
``Saver``                   ``save``/``restore`` through graph ops, any session type;
                            ``latest_checkpoint``, ``get_checkpoint_state`` (``saver.py``);
                            restores TensorFlow's checkpoints too (``tf_checkpoint.py``);
                            ``save`` also writes ``<prefix>.meta``
``Checkpoint``              TF's object-based checkpoints in graph mode: ``save``,
                            ``write``, ``restore`` (statuses with ``assert_consumed``,
                            ``run_restore_ops``, ``initialize_or_restore``), TF's keys
                            and object graph (``object_checkpoint.py``,
                            ``object_graph.py``); ``CheckpointManager``
                            (``checkpoint_manager.py``), ``CheckpointOptions``
``import_meta_graph``       a ``.meta`` (devsession's or TF's) into the default graph:
                            nodes, collections, variables, a Saver; ``export_meta_graph``
                            writes one; ``MetaGraphDef`` (``meta_graph.py``,
                            ``saver.py``)
``write_graph``             TF1's ``(graph, logdir, name, as_text=True)`` (``graph_io.py``)
``NewCheckpointReader``     ``list_variables``, ``load_variable``: a checkpoint's tensors
                            without a graph (``checkpoint_reader.py``);
                            ``load_checkpoint``, ``init_from_checkpoint`` (variables'
                            initializers read a checkpoint: ``checkpoint_init.py``);
                            ``warm_start``, ``VocabInfo`` (by pattern, vocabulary
                            remapping: ``warm_starting.py``)
global step                 ``get_or_create_global_step``, ``get_global_step``,
                            ``create_global_step``, ``global_step``,
                            ``assert_global_step`` (``training_util.py``)
``replica_device_setter``   variables round robin on ps tasks, the rest on the worker
                            (``device_setter.py``)
``Server``, ``ClusterSpec``  TF1's spellings of ``ds.Server`` and ``ds.ClusterSpec``
                            (``devsession/distributed``, loaded on first use)
``ClusterDef``, ``JobDef``  TF's cluster protos (``ServerDef`` too): ``proto/cluster.proto``,
                            ``tensorflow_server.proto``, serialized as TF serializes them;
                            ``Server(server_def)``, ``ClusterSpec(cluster_def)``
``MonitoredTrainingSession``  the training loop's session: init or restore on the chief,
                            the others wait; hooks (``StopAtStepHook``,
                            ``CheckpointSaverHook``, ``SummarySaverHook``), ``Scaffold``
                            (``monitored_session.py``); ``NanTensorHook``,
                            ``LoggingTensorHook``, ``StepCounterHook``, ``FinalOpsHook``,
                            ``FeedFnHook``, ``GlobalStepWaiterHook``, ``SecondOrStepTimer``,
                            ``ProfilerHook`` (``hooks.py``); ``CheckpointSaverListener``
                            (around ``CheckpointSaverHook``'s saves)
``checkpoints_iterator``    new checkpoints as they appear (an evaluation loop);
                            ``remove_checkpoint``, ``get_checkpoint_mtimes``,
                            ``update_checkpoint_state``; ``summary_iterator`` reads event
                            files (``checkpoint_management.py``)
``Supervisor``              the older TF1 loop (``managed_session``): init or restore,
                            checkpoint and summary threads, the graph finalized
                            (``supervisor.py``); ``SessionManager``: a session made ready
                            (``session_manager.py``); ``basic_train_loop``
                            (``basic_loops.py``)
``Coordinator``             stop requests and the first error of a loop's threads;
                            ``LooperThread`` (``coordinator.py``)
``QueueRunner``             threads running a queue's enqueue ops; ``add_queue_runner``,
                            ``start_queue_runners`` (``queue_runner.py``)
``ExponentialMovingAverage``  shadow variables following others (``moving_averages.py``)
``Example``, ``Features``   TF's Example protos (``Feature``, ``BytesList``, ``FloatList``,
                            ``Int64List``, ``SequenceExample``, ``FeatureList(s)``):
                            ``proto/example.proto``, serialized as TF serializes them
``exponential_decay`` ...   learning-rate schedules of the global step: exponential,
                            natural exp, inverse time, polynomial, cosine (with restarts,
                            linear, noisy linear), piecewise constant
                            (``learning_rate_decay.py``)
==========================  ==============================================================

A TF1 ``tf.train`` name devsession lacks is an ``UnsupportedTF1Error`` naming it.

The updates are fused ops (``devsession/ops/training.py``) that change each variable in
place in one pass over its arrays, on the variable's device.
"""

import types as _types

from ..proto.example_pb2 import (BytesList, Example, Feature, FeatureList, FeatureLists,
                                 Features, FloatList, Int64List, SequenceExample)
from ..proto.cluster_pb2 import ClusterDef, JobDef
from ..proto.meta_graph_pb2 import MetaGraphDef, SaverDef
from ..proto.tensorflow_server_pb2 import ServerDef
from .adadelta import AdadeltaOptimizer
from .adagrad import AdagradOptimizer
from .adagrad_da import AdagradDAOptimizer
from .ftrl import FtrlOptimizer
from .proximal import ProximalAdagradOptimizer, ProximalGradientDescentOptimizer
from .adam import AdamOptimizer
from .device_setter import replica_device_setter
from .gradient_descent import GradientDescentOptimizer
from .graph_io import write_graph
from .learning_rate_decay import (cosine_decay, cosine_decay_restarts, exponential_decay,
                                  inverse_time_decay, linear_cosine_decay,
                                  noisy_linear_cosine_decay,
                                  natural_exp_decay, piecewise_constant, polynomial_decay)
from .meta_graph import export_meta_graph
piecewise_constant_decay = piecewise_constant   # TF1's alias
from .momentum import MomentumOptimizer
from .moving_averages import ExponentialMovingAverage
from .hooks import (FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
                    NanLossDuringTrainingError, NanTensorHook, ProfilerHook,
                    SecondOrStepTimer, StepCounterHook)
from .checkpoint_management import (checkpoints_iterator, generate_checkpoint_state_proto,
                                    get_checkpoint_mtimes, remove_checkpoint,
                                    summary_iterator, update_checkpoint_state)
from .monitored_session import (CheckpointSaverHook, CheckpointSaverListener,
                                ChiefSessionCreator, MonitoredSession,
                                MonitoredTrainingSession, Scaffold, SessionCreator,
                                SessionRunArgs, SessionRunContext, SessionRunHook,
                                SessionRunValues, SingularMonitoredSession, StepContext,
                                StopAtStepHook, SummarySaverHook, WorkerSessionCreator)
from .optimizer import Optimizer
from .rmsprop import RMSPropOptimizer
from .sync_replicas import SyncReplicasOptimizer
from . import queue_runner
from .coordinator import Coordinator, LooperThread
from .session_manager import SessionManager
from .supervisor import Supervisor
from .basic_loops import basic_train_loop
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from .input import (batch, batch_join, input_producer, limit_epochs, match_filenames_once,
                    maybe_batch, maybe_batch_join, maybe_shuffle_batch,
                    maybe_shuffle_batch_join, range_input_producer, shuffle_batch,
                    shuffle_batch_join, slice_input_producer, string_input_producer)
from .checkpoint_reader import (CheckpointReader, NewCheckpointReader, list_variables,
                                load_variable)
from .checkpoint_init import init_from_checkpoint, load_checkpoint
from .object_checkpoint import Checkpoint, CheckpointOptions
from .checkpoint_manager import CheckpointManager
from .warm_starting import VocabInfo, warm_start
from .saver import (CheckpointState, Saver, checkpoint_exists, get_checkpoint_state,
                    import_meta_graph, latest_checkpoint)
from .training_util import (assert_global_step, create_global_step, get_global_step,
                            get_or_create_global_step, global_step)
from .loss_scale import DynamicLossScale as _DynamicLossScale
from .loss_scale import FixedLossScale as _FixedLossScale
from .loss_scale import LossScale as _LossScale
from . import loss_scale_optimizer as _loss_scaling

experimental = _types.SimpleNamespace(     # tf.train.experimental: mixed precision's names
    LossScale=_LossScale, FixedLossScale=_FixedLossScale, DynamicLossScale=_DynamicLossScale,
    MixedPrecisionLossScaleOptimizer=_loss_scaling.MixedPrecisionLossScaleOptimizer,
    enable_mixed_precision_graph_rewrite=_loss_scaling.enable_mixed_precision_graph_rewrite,
    disable_mixed_precision_graph_rewrite=_loss_scaling.disable_mixed_precision_graph_rewrite)

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "RMSPropOptimizer", "AdagradOptimizer", "AdadeltaOptimizer", "FtrlOptimizer",
           "ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer", "AdagradDAOptimizer",
           "SyncReplicasOptimizer",
           "Saver", "CheckpointState", "latest_checkpoint", "get_checkpoint_state",
           "Checkpoint", "CheckpointManager", "CheckpointOptions",
           "checkpoint_exists", "create_global_step", "get_global_step",
           "get_or_create_global_step", "global_step", "replica_device_setter",
           "exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay",
           "cosine_decay", "cosine_decay_restarts", "linear_cosine_decay",
           "noisy_linear_cosine_decay", "piecewise_constant", "piecewise_constant_decay",
           "MonitoredTrainingSession",
           "SessionRunHook",
           "SessionRunArgs", "SessionRunValues", "SessionRunContext", "StopAtStepHook",
           "CheckpointSaverHook", "SummarySaverHook", "ExponentialMovingAverage", "Scaffold",
           "MonitoredSession", "SingularMonitoredSession", "ChiefSessionCreator",
           "WorkerSessionCreator", "SessionCreator", "StepContext",
           "NanTensorHook", "NanLossDuringTrainingError", "LoggingTensorHook",
           "StepCounterHook", "FinalOpsHook", "FeedFnHook", "GlobalStepWaiterHook",
           "SecondOrStepTimer", "ProfilerHook", "CheckpointSaverListener", "basic_train_loop",
           "assert_global_step", "checkpoints_iterator", "get_checkpoint_mtimes",
           "remove_checkpoint", "update_checkpoint_state", "generate_checkpoint_state_proto",
           "summary_iterator", "CheckpointReader", "NewCheckpointReader", "list_variables",
           "load_variable", "load_checkpoint", "init_from_checkpoint", "warm_start", "VocabInfo",
           "Example", "Features", "Feature", "BytesList", "FloatList",
           "Int64List", "SequenceExample", "FeatureList", "FeatureLists",
           "ClusterDef", "JobDef", "ServerDef",
           "export_meta_graph", "import_meta_graph", "write_graph", "MetaGraphDef",
           "SaverDef", "Coordinator", "LooperThread", "Supervisor", "SessionManager",
           "QueueRunner", "add_queue_runner",
           "start_queue_runners", "queue_runner", "batch", "batch_join", "input_producer",
           "limit_epochs", "range_input_producer", "shuffle_batch", "shuffle_batch_join",
           "slice_input_producer", "string_input_producer", "match_filenames_once",
           "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch", "maybe_shuffle_batch_join",
           "experimental"]


def __getattr__(name: str):
    """``Server`` and ``ClusterSpec`` load the distributed runtime on first use."""
    if name in ("Server", "ClusterSpec"):
        from .. import distributed

        return getattr(distributed, name)
    from ..unsupported import missing

    raise missing("train", name)
