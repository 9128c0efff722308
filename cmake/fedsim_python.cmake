# Whether to build the Python module `fedsim` (python/, docs/python.md) and for which interpreter.
#
# FEDSIM_PYTHON (default ON) builds it when pybind11 (Debian's pybind11-dev) and the Python
# headers are found; otherwise a STATUS line says why not, and the rest of fedsim builds as
# before. The module is built for Debian's own interpreter, /usr/bin/python3 (the one Debian's
# python3-* packages, pandas and pytest among them, install into), not for whichever python3
# comes first on PATH: give -DPython3_EXECUTABLE=... to choose another. The tests and docs name
# the interpreter found here (FEDSIM_PYTHON_INTERPRETER).
#
# Sets FEDSIM_PYTHON_BUILD, and CMAKE_POSITION_INDEPENDENT_CODE ON for every library: the module
# is a shared object into which the static libraries are linked.
option(FEDSIM_PYTHON "Build the Python module fedsim (python/; needs pybind11-dev, python3-dev)" ON)
set(FEDSIM_PYTHON_BUILD OFF)
if(FEDSIM_PYTHON AND FEDSIM_SANITIZE)
  message(STATUS "Python module fedsim: not built in a sanitizer build (FEDSIM_SANITIZE)")
elseif(FEDSIM_PYTHON)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH
        "The interpreter the Python module is built for (Debian's own by default)")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    # pybind11 2.10 sees Python3_FOUND and takes that interpreter (its FindPython mode).
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  if(NOT Python3_FOUND)
    message(STATUS "Python module fedsim: not built: no Python 3 interpreter with its headers "
                   "(install python3-dev, or give -DPython3_EXECUTABLE=...; -DFEDSIM_PYTHON=OFF "
                   "silences this)")
  elseif(NOT pybind11_FOUND)
    message(STATUS "Python module fedsim: not built: pybind11 not found (install pybind11-dev "
                   "python3-pybind11: tools/setup; -DFEDSIM_PYTHON=OFF silences this)")
  else()
    set(FEDSIM_PYTHON_BUILD ON)
    set(FEDSIM_PYTHON_INTERPRETER "${Python3_EXECUTABLE}")
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "Python module fedsim: built for ${Python3_EXECUTABLE} (Python "
                   "${Python3_VERSION}, pybind11 ${pybind11_VERSION})")
  endif()
endif()
