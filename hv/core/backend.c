// SPDX-License-Identifier: MIT
#include "backend.h"

const struct backend_ops *backend;
