from lib.util import *
