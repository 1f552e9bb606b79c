#pragma once
// Tessera core: execution and memory spaces, View, parallel patterns,
// policies, reducers and atomics. The one header users include.
#include <tessera/config.hpp>
#include <tessera/core/atomics.hpp>
#include <tessera/core/array.hpp>
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/dual_view.hpp>
#include <tessera/core/error.hpp>
#include <tessera/core/initialize.hpp>
#include <tessera/core/layout.hpp>
#include <tessera/core/memory_space.hpp>
#include <tessera/core/memory_traits.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/pair.hpp>
#include <tessera/core/printf.hpp>
#include <tessera/core/parallel.hpp>
#include <tessera/core/profiling.hpp>
#include <tessera/core/random.hpp>
#include <tessera/core/range_policy.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/scatter_view.hpp>
#include <tessera/core/sort.hpp>
#include <tessera/core/space_traits.hpp>
#include <tessera/core/subview.hpp>
#include <tessera/core/timer.hpp>
#include <tessera/core/view.hpp>
