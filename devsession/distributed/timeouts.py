"""Every deadline and grace period of the cluster runtime, in one place.

A bottom module (it imports nothing), so the client, the master and the workers agree on
them without importing each other.  All in seconds.  A user's ``operation_timeout_s``
or ``RunOptions.timeout_s`` bounds a step; these bound what the user did not time.
"""

# Connections
KEEPALIVE_S = 5.0              # clients ping a peer this often during calls ...
KEEPALIVE_TIMEOUT_S = 5.0      # ... and give up on it when it does not answer within this
CONNECT_TIMEOUT_S = 10.0       # waiting for a task never reached (config "connect_timeout_s")
RECONNECT_WAIT_S = 5.0         # waiting for a task that failed and accepts connections again

# Control calls
STATUS_TIMEOUT_S = 10.0        # a worker's status (devices, kernels, incarnation)
REGISTER_TIMEOUT_S = 300.0     # importing and compiling a big partition can take a while
CONTROL_TIMEOUT_S = 10.0       # abort, reset, deregister on a worker
CLIENT_CONTROL_TIMEOUT_S = 60.0  # a client's create/extend/close/list-devices calls
PREPARE_TIMEOUT_S = 600.0      # a client's PrepareStep: reach, place, register, compile
CLOSE_TIMEOUT_S = 5.0          # a client closing its session

# Steps
RUN_GRACE_S = 2.0              # a RunGraph's deadline is the step's plus this, so the
                               # worker's own DeadlineExceededError arrives first
ABORT_GRACE_S = 2.0            # the master's wait for partitions to stop after an abort
HOLD_TTL_S = 300.0             # staged feeds and held fetches nobody claimed are dropped
IDLE_CLOSE_S = 30.0            # an exchange stream idle this long is closed
