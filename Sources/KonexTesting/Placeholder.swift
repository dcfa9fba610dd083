import Konex
